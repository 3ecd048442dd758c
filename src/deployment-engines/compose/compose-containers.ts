import type Docker from 'dockerode';
import { firstEnvValue, OCI_VERSION_LABEL, repoDigestOf } from '../../docker-client/container-facts.ts';
import {
  COMPOSE_ONEOFF_LABEL,
  COMPOSE_PROJECT_LABEL,
  COMPOSE_SERVICE_LABEL,
  type ComposeContainer,
} from '../../upgrade/compose/compose-types.ts';
import { pinnedDigest } from '../../upgrade/deployment-types.ts';

/**
 * Every container of a Compose project, running or not, found by Compose's own labels (so
 * replicas, stopped leftovers and containers on an old digest are all seen), with the digest it
 * runs and the version it carries (`SERVICE_VERSION`, web `SERVICE_CLIENT_VERSION`, else its
 * version label). Read through the Engine API, never through the Compose CLI.
 */
export async function readComposeContainers(
  docker: Docker,
  project: string,
  webServices: ReadonlySet<string> = new Set(),
  /** Where the version may be, in order (`versionReadOrder`): the service's own names first. */
  names: { server: readonly string[]; client: readonly string[] } = {
    server: ['SERVICE_VERSION'],
    client: ['SERVICE_CLIENT_VERSION'],
  },
): Promise<ComposeContainer[]> {
  const listed = await docker.listContainers({
    all: true,
    filters: { label: [`${COMPOSE_PROJECT_LABEL}=${project}`] },
  });
  const repoDigests = new Map<string, string[]>();
  const found = await Promise.all(
    listed.map(async (summary): Promise<ComposeContainer | undefined> => {
      const info = await docker
        .getContainer(summary.Id)
        .inspect()
        .catch(() => undefined);
      // Removed between the list and the inspect (Compose replacing it): not there any more.
      if (!info) return undefined;
      const labels = info.Config.Labels ?? {};
      const service = labels[COMPOSE_SERVICE_LABEL] ?? '?';
      const reference = info.Config.Image;
      let digest = pinnedDigest(reference);
      if (!digest) {
        if (!repoDigests.has(info.Image)) {
          const image = await docker
            .getImage(info.Image)
            .inspect()
            .catch(() => undefined);
          repoDigests.set(info.Image, image?.RepoDigests ?? []);
        }
        digest = repoDigestOf(repoDigests.get(info.Image), reference);
      }
      const keys = webServices.has(service) ? names.client : names.server;
      const { env } = firstEnvValue(info.Config.Env, keys);
      const health = (info.State as { Health?: { Status?: string; Log?: { Output?: string }[] } }).Health;
      const lastLog = health?.Log?.at(-1)?.Output?.trim();
      return {
        id: info.Id,
        name: info.Name.replace(/^\//, ''),
        service,
        image: reference,
        digest,
        state: info.State.Status,
        ...(health?.Status ? { health: health.Status } : {}),
        ...(health?.Status === 'unhealthy' && lastLog ? { healthLog: lastLog.slice(0, 200) } : {}),
        exitCode: info.State.ExitCode,
        restartCount: info.RestartCount ?? 0,
        version: env?.trim() || labels[OCI_VERSION_LABEL] || undefined,
        oneOff: labels[COMPOSE_ONEOFF_LABEL] === 'True',
      };
    }),
  );
  return found.filter((c): c is ComposeContainer => c !== undefined);
}
