/**
 * The parts of Docker Swarm's objects the toolkit reads, as plain data (Engine API
 * `ServiceSpec`, `Task`, `Node`): the adapter (swarm.ts) fills them; the upgrade's pure rules
 * (`src/upgrade/swarm/`) and verify's readings of a Swarm take them as they are.
 */

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
