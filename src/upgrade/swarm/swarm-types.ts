/**
 * What the upgrade's pure Swarm rules know of Swarm's objects beyond the adapter's views
 * (`src/deployment-engines/swarm/swarm-views.ts`, which the adapter fills): everything in this
 * folder is pure and never talks to an engine.
 */
import type { NodeView, ServiceSpec } from '../../deployment-engines/swarm/swarm-views.ts';
import type { ServiceRole } from '../deployment-types.ts';

export type { NodeView, ServiceSpec, TaskView } from '../../deployment-engines/swarm/swarm-views.ts';

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
  /**
   * A one-shot job the config declares (`role: 'job'`, a migration): it runs to completion in a
   * phase of its own, before the others move. `role` is then the role whose image it runs.
   */
  oneShot?: boolean;
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
