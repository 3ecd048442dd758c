import type { UpdateOrder } from './swarm-plan.ts';
import { type ServiceSpec, SWARM_DEFAULT_UPDATE_CONFIG } from './swarm-types.ts';

/**
 * The spec a rollback writes first: the previous spec, whole, except how Swarm carries the update
 * out: in the order the service allows (as the upgrade did), and on past a failed task.
 *
 * Why not the previous spec as it is: its update config usually says `FailureAction: pause`
 * (Swarm's default). The rollback's first task can fail for a reason that passes, typically the
 * API's host port still held by the task the interrupted upgrade was stopping when the rollback's
 * task starts (Swarm's stop-first waits for one old task of the slot, not for every one). Swarm
 * then pauses the rollback itself at that first failure; its restart policy does start another
 * task, but the update stays paused and the rollback cannot be told from one that is stuck.
 * With `continue` the restart policy alone retries, and the rollback converges or meets its
 * deadline. `previousSpecAgain` then puts the user's own update config back.
 */
export function rollbackSpec(
  previous: ServiceSpec,
  order: UpdateOrder,
  cluster: { nodeLost: boolean } = { nodeLost: false },
): ServiceSpec {
  const spec = structuredClone(previous);
  spec.UpdateConfig = {
    ...(previous.UpdateConfig ?? SWARM_DEFAULT_UPDATE_CONFIG),
    Order: order,
    FailureAction: 'continue',
    // With a node lost, the task of its slot cannot be placed and stays pending, and Swarm's
    // updater waits on a slot's new task before it takes the next: one slot at a time, the
    // rollback would never reach the live nodes. Every slot at once puts back all that can run.
    ...(cluster.nodeLost ? { Parallelism: 0 } : {}),
  };
  return spec;
}

/**
 * After the rollback (converged or not), what it takes for the service to have exactly the spec it
 * had before the upgrade. `done`: it has it. `write`: only the update config differs, the one the
 * rollback changed; writing the previous spec restarts no task (Swarm compares task templates).
 * `changed`: something else differs, someone changed the service meanwhile; theirs is kept.
 */
export function previousSpecAgain(current: ServiceSpec, previous: ServiceSpec): 'done' | 'write' | 'changed' {
  if (sameJson(current, previous)) return 'done';
  const { UpdateConfig: _current, ...currentRest } = current;
  const { UpdateConfig: _previous, ...previousRest } = previous;
  return sameJson(currentRest, previousRest) ? 'write' : 'changed';
}

/** Equal as JSON, whatever the order of object keys. */
function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
