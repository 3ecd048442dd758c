import type { TaskView } from './swarm-types.ts';

export type JobRunVerdict =
  | { status: 'completed'; task: TaskView }
  | { status: 'waiting'; reason: string }
  | { status: 'failed'; reason: string };

/** Task states of a run that ended without completing. */
const FAILED = new Set(['failed', 'rejected', 'shutdown', 'orphaned', 'remove']);

/**
 * Has a one-shot service's new run (a replicated job, or a service with restart policy none)
 * completed, as Compose's `service_completed_successfully` asks? Pure: the service's tasks as
 * listed, those that existed before this run's write (`before`: earlier runs are history), and
 * the image the run must be of. `complete` is exit 0; a task of the image that failed, was
 * rejected or was shut down before completing is a failed run.
 */
export function judgeJobRun(input: {
  tasks: readonly TaskView[];
  before: ReadonlySet<string>;
  image: string;
}): JobRunVerdict {
  const mine = input.tasks.filter((t) => !input.before.has(t.id) && t.image === input.image);
  if (mine.length === 0) return { status: 'waiting', reason: 'no task of the new run yet' };
  const done = mine.find((t) => t.state === 'complete');
  if (done) return { status: 'completed', task: done };
  const failed = mine.find((t) => FAILED.has(t.state));
  // A job's task that is shut down before running is Swarm replacing it (a lost node): wait for
  // the next, unless nothing else of the run remains.
  if (failed && (failed.state !== 'shutdown' || mine.every((t) => FAILED.has(t.state)))) {
    const code = failed.exitCode !== undefined ? ` with code ${failed.exitCode}` : '';
    return {
      status: 'failed',
      reason: `task ${failed.id.slice(0, 12)} ${failed.state}${code}${failed.error ? ` (${failed.error})` : ''}`,
    };
  }
  return { status: 'waiting', reason: `task ${mine[0]!.id.slice(0, 12)} ${mine[0]!.state}` };
}
