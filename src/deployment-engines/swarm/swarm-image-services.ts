import type { DockerClient } from '../../docker-client/connect.ts';
import { firstEnvValue, OCI_VERSION_LABEL, repoDigestOf } from '../../docker-client/container-facts.ts';
import { isImageOf, splitImageRef } from '../../registry/image-ref.ts';
import { listNodes, listTasks, type SwarmTask } from './swarm.ts';
import type { NodeView } from './swarm-views.ts';

/** One Swarm service of an image, read from its spec, with each place it carries a version. */
export interface ImageService {
  id: string;
  /** Its name (`Spec.Name`), when the spec has one. */
  name: string | undefined;
  /** The image its spec names, as written (`repo:tag@sha256:...`). */
  reference: string;
  /** The first of the asked variable names its spec's environment sets, and its value. */
  env: string | undefined;
  envName?: string;
  /** What it runs: its spec's command and args (Compose's `command:` becomes Args), else the image's. */
  argv: string[];
  /** The version label of its spec, else of the engine's copy of its image. */
  label: string | undefined;
  /** The digest its spec pins, else the one the engine pulled its image as. */
  digest: string | undefined;
  /** Replicas asked for; undefined for a global service. */
  replicas: number | undefined;
  /**
   * A service that runs to completion (a replicated job, or a restart policy of none): its last
   * task, which says how its last run went. Undefined for a service meant to keep running.
   */
  lastRun?: SwarmTask;
  /**
   * Its tasks, read only when the swarm has more than one node: on one node the manager's view is
   * the node's, on several it is not the whole truth (a lost node may still run an old task).
   */
  tasks: SwarmTask[];
}

export interface ImageServices {
  services: ImageService[];
  /** The swarm's nodes as the manager sees them (none on an engine that is not a manager). */
  nodes: NodeView[];
}

/**
 * Every Swarm service whose spec runs an image of `repository`. An engine that is not a Swarm
 * manager simply has no services (and no nodes).
 */
export async function readImageServices(
  docker: DockerClient,
  query: {
    repository: string;
    envNames: readonly string[];
    /**
     * Whether a service running these words is a one-shot job the caller knows of (a config's
     * job role): read by its last run whatever its mode and restart policy (a stack's migrator
     * with `restart_policy: on-failure` completes and stays so).
     */
    runsOnce?: (argv: readonly string[]) => boolean;
  },
): Promise<ImageServices> {
  let listed: Awaited<ReturnType<DockerClient['listServices']>>;
  try {
    listed = await docker.listServices();
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 503) return { services: [], nodes: [] };
    throw error;
  }
  // The nodes only tell the per-node readings apart: a manager that cannot list them reads as one node.
  const nodes = await listNodes(docker).catch(() => []);
  const found = await Promise.all(
    listed.map(async (service): Promise<ImageService | undefined> => {
      const container = (service.Spec?.TaskTemplate as { ContainerSpec?: RawContainerSpec } | undefined)
        ?.ContainerSpec;
      const reference = container?.Image;
      if (!reference || !isImageOf(reference, query.repository)) return undefined;
      const ref = splitImageRef(reference);
      // The version label lives on the image, not in the service spec: read it from the engine's
      // copy when it has one.
      const image = await docker
        .getImage(ref.tag ? `${ref.repository}:${ref.tag}` : (ref.digest ?? ref.repository))
        .inspect()
        .catch(() => undefined);
      const mode = service.Spec?.Mode as
        | { Replicated?: { Replicas?: number }; ReplicatedJob?: unknown; GlobalJob?: unknown }
        | undefined;
      const replicas = mode?.Replicated?.Replicas ?? (mode?.ReplicatedJob ? 1 : undefined);
      const restart = (service.Spec?.TaskTemplate as { RestartPolicy?: { Condition?: string } } | undefined)
        ?.RestartPolicy?.Condition;
      const argv = [
        ...(container?.Command ?? image?.Config?.Entrypoint ?? []),
        ...(container?.Args ?? (container?.Command ? [] : (image?.Config?.Cmd ?? []))),
      ];
      const oneShot =
        Boolean(mode?.ReplicatedJob || mode?.GlobalJob) ||
        restart === 'none' ||
        (query.runsOnce?.(argv) ?? false);
      const tasks = nodes.length > 1 || oneShot ? await listTasks(docker, service.ID) : [];
      return {
        id: service.ID,
        name: service.Spec?.Name,
        reference,
        ...firstEnvValue(container?.Env, query.envNames),
        argv,
        label: container?.Labels?.[OCI_VERSION_LABEL] ?? image?.Config?.Labels?.[OCI_VERSION_LABEL],
        digest: ref.digest ?? repoDigestOf(image?.RepoDigests, reference),
        replicas,
        ...(oneShot && tasks.length ? { lastRun: lastRunOf(tasks) } : {}),
        tasks: nodes.length > 1 ? tasks : [],
      };
    }),
  );
  return { services: found.filter((s): s is ImageService => s !== undefined), nodes };
}

/** The task of a one-shot service's current spec (not one a later update shut down), the latest first. */
function lastRunOf(tasks: SwarmTask[]): SwarmTask {
  const current = tasks.filter((t) => t.desired !== 'shutdown');
  return [...(current.length ? current : tasks)].sort((a, b) => b.since - a.since)[0]!;
}

interface RawContainerSpec {
  Image?: string;
  Env?: string[];
  Labels?: Record<string, string>;
  Command?: string[];
  Args?: string[];
}
