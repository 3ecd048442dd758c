import { isImageOf } from '../registry/image-ref.ts';
import type { DockerClient } from './connect.ts';
import { firstEnvValue, OCI_VERSION_LABEL, repoDigestOf } from './container-facts.ts';

/** Compose's labels on the containers it creates. */
const COMPOSE_PROJECT = 'com.docker.compose.project';
const COMPOSE_SERVICE = 'com.docker.compose.service';
/** Swarm's label on a task's container: the service it is a task of. */
const SWARM_SERVICE_ID = 'com.docker.swarm.service.id';

/** One container of an image, with each place it carries a version. */
export interface ImageContainer {
  id: string;
  /** Its name, without the leading slash. */
  name: string;
  /** The image reference it was created from, as written (`repo:tag`, `repo@sha256:...`). */
  reference: string;
  /** The Compose service that made it, when Compose did. */
  composeService: string | undefined;
  /** The Swarm service it is a task of, when it is one. */
  swarmServiceId: string | undefined;
  /** The first of the asked variable names its environment sets, and its value. */
  env: string | undefined;
  envName?: string;
  /** What it runs: entrypoint then command (tells the roles of one image apart). */
  argv: string[];
  /** Its `org.opencontainers.image.version` label. */
  label: string | undefined;
  /** The manifest digest its image was pulled as, when the engine knows it. */
  digest: string | undefined;
  running: boolean;
  /** The engine's word for its state (`running`, `exited`...). */
  state: string;
  /** A one-shot job's container (a migration) that exited 0: its work is done, it is not stopped. */
  finished: boolean;
  /** Its exit code, once it has exited. */
  exitCode?: number;
  /** When it exited, else when it started, else was created (ms since the epoch). */
  at: number;
}

export interface ImageContainersQuery {
  /** The repository (`acme/worker`, or with its registry): every tag and digest of it counts. */
  repository: string;
  /** Only this Compose project's containers, found by Compose's project label. */
  composeProject?: string;
  /** The project's one-shot services: a container of one that exited 0 is `finished`. */
  oneShots?: ReadonlySet<string>;
  /** The variables the version may be in, in order: the first one set counts. */
  envNames: readonly string[];
}

/**
 * Every container of an image on one engine, running or not: what plain Docker and Compose both
 * run, so it is read here, under the Docker client both engines share. Swarm's task containers are
 * among them (`swarmServiceId` says whose).
 */
export async function readImageContainers(
  docker: DockerClient,
  query: ImageContainersQuery,
): Promise<ImageContainer[]> {
  const listed = await docker.listContainers({
    all: true,
    ...(query.composeProject ? { filters: { label: [`${COMPOSE_PROJECT}=${query.composeProject}`] } } : {}),
  });
  // The list shows an image id instead of a name when the tag has moved on: inspect those too.
  const candidates = listed.filter(
    (c) => isImageOf(c.Image, query.repository) || c.Image.startsWith('sha256:'),
  );
  const found = await Promise.all(
    candidates.map(async (summary): Promise<ImageContainer | undefined> => {
      const info = await docker.getContainer(summary.Id).inspect();
      const reference = info.Config.Image;
      if (!isImageOf(reference, query.repository)) return undefined;
      const image = await docker
        .getImage(info.Image)
        .inspect()
        .catch(() => undefined);
      const labels = info.Config.Labels ?? {};
      const composeService = labels[COMPOSE_SERVICE];
      return {
        id: info.Id,
        name: info.Name.replace(/^\//, ''),
        reference,
        composeService,
        swarmServiceId: labels[SWARM_SERVICE_ID],
        ...firstEnvValue(info.Config.Env, query.envNames),
        argv: [...(info.Config.Entrypoint ?? []), ...(info.Config.Cmd ?? [])],
        label: labels[OCI_VERSION_LABEL],
        digest: repoDigestOf(image?.RepoDigests, reference),
        running: info.State.Running,
        state: info.State.Status,
        ...(info.State.Running || info.State.Status === 'created' ? {} : { exitCode: info.State.ExitCode }),
        at: lastMoment(info.State.FinishedAt, info.State.StartedAt, info.Created),
        finished:
          !info.State.Running &&
          info.State.ExitCode === 0 &&
          composeService !== undefined &&
          (query.oneShots?.has(composeService) ?? false),
      };
    }),
  );
  return found.filter((c): c is ImageContainer => c !== undefined);
}

/** The latest of the engine's timestamps that is set (it writes `0001-01-01T00:00:00Z` for never). */
function lastMoment(...stamps: (string | undefined)[]): number {
  return Math.max(0, ...stamps.map((s) => Date.parse(s ?? '') || 0));
}
