import type Docker from 'dockerode';
import { ExternalError, UsageError } from '../../errors.ts';
import type { NodeView, ServiceSpec, TaskView } from './swarm-views.ts';

/**
 * Docker Swarm, one small function per question (np's git-util style): inspect a service, update
 * it with a whole spec at a version index, list its tasks, read a task container. Everything the
 * upgrade decides lives in `src/upgrade/` and only gets data from here.
 */

export interface InspectedService {
  id: string;
  name: string;
  versionIndex: number;
  spec: ServiceSpec;
  updateState: string | undefined;
  updateMessage: string | undefined;
}

export async function inspectService(docker: Docker, name: string): Promise<InspectedService> {
  let info: Docker.Service & { UpdateStatus?: { State?: string; Message?: string } };
  try {
    info = (await docker.getService(name).inspect()) as typeof info;
  } catch (error) {
    const status = (error as { statusCode?: number }).statusCode;
    if (status === 404) {
      throw new UsageError('UPGRADE_NO_SERVICE', `the engine has no Swarm service "${name}"`, {
        hint: 'check the --service map (docker service ls lists the services)',
      });
    }
    if (status === 503) {
      throw new ExternalError('UPGRADE_NOT_SWARM', 'the engine is not a Swarm manager', {
        hint: 'run release upgrade against a manager node (--docker-host), or docker swarm init',
      });
    }
    throw engineError(`cannot inspect service "${name}"`, error);
  }
  return {
    id: info.ID,
    name: info.Spec?.Name ?? name,
    versionIndex: info.Version?.Index ?? 0,
    spec: info.Spec as ServiceSpec,
    updateState: info.UpdateStatus?.State,
    updateMessage: info.UpdateStatus?.Message,
  };
}

/** Every Swarm service's name and spec (the services of an image the config names none for). */
export async function listServiceSpecs(docker: Docker): Promise<{ name: string; spec: ServiceSpec }[]> {
  try {
    const services = await docker.listServices();
    return services.map((s) => ({ name: s.Spec?.Name ?? s.ID, spec: s.Spec as ServiceSpec }));
  } catch (error) {
    throw engineError('cannot list the Swarm services', error);
  }
}

/**
 * Replace a service's spec, whole, at the version index it was read at (the engine refuses a
 * stale index instead of silently overwriting someone else's change). The spec goes in the body
 * only: dockerode would also copy every option into the query string.
 */
export async function updateService(
  docker: Docker,
  id: string,
  versionIndex: number,
  spec: ServiceSpec,
): Promise<void> {
  try {
    await docker.getService(id).update({ _query: { version: versionIndex }, _body: spec } as never);
  } catch (error) {
    throw engineError(`cannot update service ${id.slice(0, 12)}`, error);
  }
}

/**
 * Whether the engine refused a service update because its version index moved since it was read:
 * someone else's change, or Swarm's own (each change of an update's status moves it too).
 */
export function isOutOfSequence(error: unknown): boolean {
  return error instanceof ExternalError && /update out of sequence/i.test(error.message);
}

interface RawTask {
  ID: string;
  DesiredState?: string;
  NodeID?: string;
  Slot?: number;
  Version?: { Index?: number };
  Spec?: { ContainerSpec?: { Image?: string; Env?: string[] } };
  Status?: {
    Timestamp?: string;
    State?: string;
    Message?: string;
    Err?: string;
    ContainerStatus?: { ContainerID?: string; ExitCode?: number };
  };
}

/**
 * A task as listed, with what verify reads besides what decides convergence (`TaskView`, the
 * upgrade's pure type): the environment of its spec, its replica slot and its version index.
 */
export interface SwarmTask extends TaskView {
  /** The `KEY=value` lines of the task's spec (not the image's). */
  env?: string[];
  /** A replicated service's replica number: the tasks that replaced one another share it. */
  slot?: number;
  /** The task object's version index: the highest is the newest change to it. */
  versionIndex?: number;
}

export async function listTasks(docker: Docker, serviceId: string): Promise<SwarmTask[]> {
  let tasks: RawTask[];
  try {
    tasks = (await docker.listTasks({ filters: { service: [serviceId] } })) as RawTask[];
  } catch (error) {
    throw engineError(`cannot list the tasks of service ${serviceId.slice(0, 12)}`, error);
  }
  return tasks.map((t) => ({
    id: t.ID,
    image: t.Spec?.ContainerSpec?.Image ?? '',
    desired: t.DesiredState ?? '',
    state: t.Status?.State ?? '',
    since: Date.parse(t.Status?.Timestamp ?? '') || 0,
    ...(t.Status?.Err ? { error: t.Status.Err } : {}),
    ...(t.Status?.Message ? { message: t.Status.Message } : {}),
    ...(t.Status?.ContainerStatus?.ExitCode !== undefined
      ? { exitCode: t.Status.ContainerStatus.ExitCode }
      : {}),
    ...(t.Status?.ContainerStatus?.ContainerID ? { containerId: t.Status.ContainerStatus.ContainerID } : {}),
    ...(t.NodeID ? { nodeId: t.NodeID } : {}),
    ...(t.Spec?.ContainerSpec?.Env ? { env: t.Spec.ContainerSpec.Env } : {}),
    ...(t.Slot !== undefined ? { slot: t.Slot } : {}),
    ...(t.Version?.Index !== undefined ? { versionIndex: t.Version.Index } : {}),
  }));
}

interface RawNode {
  ID: string;
  Description?: { Hostname?: string };
  Status?: { State?: string; Addr?: string };
  Spec?: { Availability?: string };
}

/**
 * Every node of the swarm as the manager sees it. On a manager of one node this is that node; an
 * engine that is not a manager has no nodes to list (an empty list, as for its services).
 */
export async function listNodes(docker: Docker): Promise<NodeView[]> {
  let nodes: RawNode[];
  try {
    nodes = (await docker.listNodes()) as RawNode[];
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 503) return [];
    throw engineError('cannot list the swarm nodes', error);
  }
  return nodes.map((n) => ({
    id: n.ID,
    name: n.Description?.Hostname ?? n.ID.slice(0, 12),
    addr: n.Status?.Addr ?? '',
    state: n.Status?.State ?? 'unknown',
    availability: n.Spec?.Availability ?? 'active',
  }));
}

/** What a task's container carries: its environment (image's and spec's merged) and labels. */
export interface ContainerReading {
  env: Record<string, string>;
  labels: Record<string, string>;
  /** The manifest digest the engine pulled for it, when known. */
  digest: string | undefined;
}

/**
 * Read a task's container on this engine. Undefined when it is not here (a task on another node
 * of the swarm: the manager lists it but cannot inspect its container).
 */
export async function readContainer(
  docker: Docker,
  containerId: string,
): Promise<ContainerReading | undefined> {
  let info: Docker.ContainerInspectInfo;
  try {
    info = await docker.getContainer(containerId).inspect();
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return undefined;
    throw engineError(`cannot inspect container ${containerId.slice(0, 12)}`, error);
  }
  const env: Record<string, string> = {};
  for (const line of info.Config.Env ?? []) {
    const eq = line.indexOf('=');
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  const image = await docker
    .getImage(info.Image)
    .inspect()
    .catch(() => undefined);
  const digest = image?.RepoDigests?.[0]?.split('@')[1];
  return { env, labels: info.Config.Labels ?? {}, digest };
}

/**
 * A container's health, when its image or spec has a health check: the status and the last
 * check's output. Undefined when it has none or is gone.
 */
export async function readHealth(
  docker: Docker,
  containerId: string,
): Promise<{ status: string; failingStreak: number; lastOutput: string } | undefined> {
  try {
    const info = await docker.getContainer(containerId).inspect();
    const health = info.State.Health as
      | { Status?: string; FailingStreak?: number; Log?: { ExitCode?: number; Output?: string }[] }
      | undefined;
    if (!health?.Status) return undefined;
    const last = health.Log?.at(-1);
    return {
      status: health.Status,
      failingStreak: health.FailingStreak ?? 0,
      lastOutput: `exit ${last?.ExitCode ?? '?'}${last?.Output?.trim() ? `, ${last.Output.trim().slice(0, 200)}` : ''}`,
    };
  } catch {
    return undefined;
  }
}

/**
 * The names of the networks a spec attaches to. A spec names them by swarm-scoped ID (the
 * predefined `host` network too has one, unlike its local ID), so each is inspected.
 */
export async function networkNames(docker: Docker, ids: string[]): Promise<string[]> {
  return Promise.all(
    ids.map(async (id) => {
      try {
        const info = (await docker.getNetwork(id).inspect()) as { Name?: string; Driver?: string };
        // The predefined host network: judged by its driver, whatever it is called.
        return info.Driver === 'host' ? 'host' : (info.Name ?? id);
      } catch (error) {
        if ((error as { statusCode?: number }).statusCode === 404) return id;
        throw engineError(`cannot inspect network ${id.slice(0, 12)}`, error);
      }
    }),
  );
}

function engineError(what: string, error: unknown): ExternalError {
  const message = (error as { json?: { message?: string } }).json?.message ?? (error as Error).message;
  return new ExternalError('UPGRADE_ENGINE', `${what}: ${message}`, {
    hint: 'check the engine (--docker-host) answers and is a Swarm manager',
    cause: error,
  });
}
