import { listNodes, listTasks, readContainer } from '../../../deployment-engines/swarm/swarm.ts';
import type { DockerClient } from '../../../docker-client/connect.ts';
import { OCI_VERSION_LABEL, workerVersionOf } from '../../../docker-client/container-facts.ts';
import { splitImageRef } from '../../../registry/image-ref.ts';
import type { ServiceRole } from '../../../upgrade/deployment-types.ts';
import type { Proof } from '../../../upgrade/upgrade-outcome.ts';
import { verifyChecks } from '../verify-checks.ts';
import type { SwarmUpgradeContext } from './swarm-context.ts';

/** What the running tasks of a service report, read from the engine the way `release verify` does. */
export interface TaskVersions {
  versions: string[];
  digests: string[];
  /** How the versions were read, for the plan. */
  source: string;
}

/**
 * The versions the running tasks of a service carry (only those of `image`, when given): the
 * task container's `SERVICE_VERSION` (web: `SERVICE_CLIENT_VERSION`), then its version label,
 * then the image tag (verify's order, `workerVersionOf`). A task on another node, whose container
 * this engine cannot inspect, is read from its image reference.
 */
export async function readTaskVersions(
  docker: DockerClient,
  serviceId: string,
  role: ServiceRole,
  image?: string,
  /** Where the version may be, in order (`versionReadOrder`): the service's own names first. */
  names: { server: readonly string[]; client: readonly string[] } = {
    server: ['SERVICE_VERSION'],
    client: ['SERVICE_CLIENT_VERSION'],
  },
): Promise<TaskVersions> {
  const tasks = (await listTasks(docker, serviceId)).filter(
    (t) => t.desired === 'running' && t.state === 'running' && (image === undefined || t.image === image),
  );
  const keys = role === 'web' ? names.client : names.server;
  const readings = await Promise.all(
    tasks.map(async (t) => {
      const container = t.containerId ? await readContainer(docker, t.containerId) : undefined;
      const ref = splitImageRef(t.image);
      // The first of the names the task sets: the service's own before the standard one.
      const env = keys.map((k) => container?.env[k]).find((value) => value);
      const { version } = workerVersionOf({
        ...(env ? { env } : {}),
        ...(container?.labels[OCI_VERSION_LABEL] ? { label: container.labels[OCI_VERSION_LABEL] } : {}),
        ...(ref.tag ? { tag: ref.tag } : {}),
      });
      return { version, digest: ref.digest ?? container?.digest };
    }),
  );
  return {
    versions: readings.map((r) => r.version),
    digests: [...new Set(readings.map((r) => r.digest).filter((d): d is string => d !== undefined))],
    source: `${tasks.length} running task(s), ${keys.join(' or ')}`,
  };
}

/**
 * The verify checks on Swarm (verify-checks.ts), and the nodes that are not ready: findings that
 * only name those are a lost node's, which the outcome tells apart (upgrade-outcome.ts).
 */
export async function proveSwarmInStep(ctx: SwarmUpgradeContext, expect: string | undefined): Promise<Proof> {
  const proof = await verifyChecks(ctx, { engine: { host: ctx.dockerHost } }, expect);
  const lostNodes = (await listNodes(ctx.docker).catch(() => []))
    .filter((n) => n.state !== 'ready')
    .map((n) => n.name);
  return { ...proof, ...(lostNodes.length ? { lostNodes } : {}) };
}
