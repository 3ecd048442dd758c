/**
 * The parts of Docker Swarm's objects the upgrade reads, as plain data (Engine API
 * `ServiceSpec`, `Task`). The adapter (`src/deployment-engines/swarm/swarm.ts`) fills them; everything in
 * this folder is pure and never talks to an engine.
 */
import type { ServiceRole } from '../deployment-types.ts';

/** A service spec as the engine returns it. Kept whole: a rollback puts back every field. */
export interface ServiceSpec {
  Name?: string;
  TaskTemplate?: {
    ContainerSpec?: { Image?: string; [key: string]: unknown };
    Networks?: { Target?: string; [key: string]: unknown }[];
    [key: string]: unknown;
  };
  Mode?: { Replicated?: { Replicas?: number }; Global?: object; [key: string]: unknown };
  UpdateConfig?: { Order?: string; FailureAction?: string; [key: string]: unknown };
  EndpointSpec?: { Ports?: { PublishMode?: string; PublishedPort?: number }[]; [key: string]: unknown };
  [key: string]: unknown;
}

/** One Swarm task, reduced to what decides convergence. */
export interface TaskView {
  id: string;
  /** The image of the spec this task runs (`repo:tag@sha256:...`). */
  image: string;
  /** What Swarm wants (`running`, `shutdown`...). */
  desired: string;
  /** Where it is (`new`...`preparing`, `starting`, `running`, `failed`, `rejected`, `shutdown`...). */
  state: string;
  /** Since when it is in `state` (ms since the epoch, the engine's clock). */
  since: number;
  /** Swarm's error for a failed task ("task: non-zero exit (2)", "unhealthy container"...). */
  error?: string;
  /** The task's status message ("started", "pulling image"...). */
  message?: string;
  exitCode?: number;
  containerId?: string;
  nodeId?: string;
}

/** One Swarm node as the manager sees it. */
export interface NodeView {
  id: string;
  /** Its hostname (what `docker node ls` shows). */
  name: string;
  /** The address it reported to the manager. */
  addr: string;
  /** `ready`, `down`, `unknown` or `disconnected`: only `ready` runs what the manager says it runs. */
  state: string;
  /** `active`, `pause` or `drain`. */
  availability: string;
}

/** A node whose reading of its tasks is trustworthy: the manager hears from it. */
export function nodeIsReady(node: NodeView | undefined): boolean {
  return node?.state === 'ready';
}

/** A service as inspected before the upgrade: its whole spec and the version index to update it. */
export interface RunningService {
  role: ServiceRole;
  name: string;
  id: string;
  versionIndex: number;
  spec: ServiceSpec;
  /** The image in its spec, as written there. */
  image: string;
  /** The digest its tasks run: pinned in the spec, else what the engine pulled. */
  digest: string | undefined;
  /** The version it reports (API: /api/version; worker and web: read from the engine). */
  version: string | undefined;
  /** Where the version was read, for the plan. */
  versionSource: string;
  /** Names of the networks it is attached to (resolved from the spec's network IDs). */
  networks: string[];
}

export function imageOfSpec(spec: ServiceSpec): string {
  return spec.TaskTemplate?.ContainerSpec?.Image ?? '';
}

/**
 * What Swarm updates with when a spec names no update config (swarmkit's defaults). A spec we
 * write with an update config must start from these, not from nothing: a config without
 * `Parallelism` means 0 to Swarm, every task of the service replaced at once.
 */
export const SWARM_DEFAULT_UPDATE_CONFIG = {
  Parallelism: 1,
  FailureAction: 'pause',
  Monitor: 5_000_000_000,
  MaxFailureRatio: 0,
  Order: 'stop-first',
} as const;
