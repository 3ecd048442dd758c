import { type NodeView, nodeIsReady, type TaskView } from './swarm-types.ts';

/** Task states after which a task will never run again. */
const FAILED_STATES = new Set(['failed', 'rejected']);
/** Ended on its own: a long-running service's task should never do that. */
const ENDED_STATES = new Set(['complete', 'orphaned', 'remove']);

export interface ConvergenceInput {
  /** Every task of the service the engine lists. */
  tasks: TaskView[];
  /** The image the service should now run (exactly as in its spec). */
  image: string;
  /** Task IDs that existed before this update: their history (old crashes) is not ours to judge. */
  before: ReadonlySet<string>;
  /** Replicated: the replica count; global: undefined (one task per node that runs one). */
  replicas: number | undefined;
  /** How long each new task must have been running to count (a crash right after start shows). */
  stableMs: number;
  /** The engine's "now" (ms since the epoch) against which `since` is measured. */
  now: number;
  /** Swarm's own update status of the service (`updating`, `paused`, `completed`...), if any. */
  updateState?: string;
  updateMessage?: string;
  /**
   * Rolling back: a failed task of the previous spec is not the end, Swarm's restart policy starts
   * another (the first may have met the new task's process still releasing a host port). Only
   * Swarm pausing the update, or the deadline, ends the wait.
   */
  tolerateFailedTasks?: boolean;
  /**
   * The swarm's nodes, read with the tasks. A task on a node that is not `ready` is not running as
   * far as anyone can tell (the manager no longer hears from it), so it never counts as done.
   */
  nodes?: NodeView[];
  /** Nodes seen not `ready` at any poll of this wait: what their tasks do is a casualty, not a verdict. */
  lostNodes?: ReadonlySet<string>;
}

export type Convergence =
  | { status: 'converged'; running: number; degraded?: string }
  | { status: 'waiting'; reason: string; resume?: true }
  | { status: 'failed'; reason: string; task?: TaskView };

/**
 * Has a service converged on `image`? Converged: as many tasks of the image running as it should
 * have, each running for at least `stableMs`, and no task of another image still running.
 * Failed at once: a task of this update that failed, was rejected or ended (a crash on start, an
 * unhealthy container, an image the node cannot pull), or Swarm paused the update. Pure: the
 * adapter polls and hands the tasks in.
 */
export function judgeConvergence(input: ConvergenceInput): Convergence {
  const nodes = new Map((input.nodes ?? []).map((n) => [n.id, n]));
  // Without a node list (an engine that is no manager), every task's reading is taken as it is.
  const trusted = (t: TaskView) => !input.nodes || nodeIsReady(nodes.get(t.nodeId ?? ''));
  const lost = (t: TaskView) => t.nodeId !== undefined && (input.lostNodes?.has(t.nodeId) ?? false);
  const fresh = input.tasks.filter((t) => !input.before.has(t.id));
  const mine = fresh.filter((t) => t.image === input.image);
  // A task that ended because its node was lost says nothing about the image.
  const broken = mine.find((t) => (FAILED_STATES.has(t.state) || ENDED_STATES.has(t.state)) && !lost(t));
  if (broken && !input.tolerateFailedTasks)
    return { status: 'failed', reason: describeFailure(broken), task: broken };
  if (input.updateState === 'paused' || input.updateState?.startsWith('rollback')) {
    // Swarm pauses an update when a task of it ends early, and a task placed on a node just before
    // the node was lost ends when the node comes back. That is the node's doing: resume.
    const named = /task ([a-z0-9]{20,})/.exec(input.updateMessage ?? '')?.[1];
    const culprit = named ? input.tasks.find((t) => t.id === named) : undefined;
    if (input.updateState === 'paused' && culprit && lost(culprit)) {
      const node = nodes.get(culprit.nodeId ?? '')?.name ?? culprit.nodeId;
      return {
        status: 'waiting',
        resume: true,
        reason: `Swarm paused the update when task ${culprit.id.slice(0, 12)} ended on ${node}, a node lost during the upgrade: resuming it`,
      };
    }
    return {
      status: 'failed',
      reason: `Swarm ${input.updateState.replace('_', ' ')} the update${input.updateMessage ? `: ${input.updateMessage}` : ''}`,
    };
  }
  // Tasks of the image that were already running count too: a rollback to a spec whose tasks
  // never stopped (start-first, an update that had not started) has converged without new ones.
  const wanted = input.tasks.filter((t) => t.image === input.image && t.desired === 'running');
  const running = wanted.filter((t) => t.state === 'running' && trusted(t));
  const expected =
    input.replicas ??
    Math.max(1, new Set(input.tasks.filter((t) => t.desired === 'running').map((t) => t.nodeId)).size);
  const others = input.tasks.filter((t) => t.image !== input.image && t.state === 'running');
  const downNodes = (input.nodes ?? []).filter((n) => !nodeIsReady(n));
  const downNote = downNodes.length ? `; ${downNodes.map((n) => `${n.name} is ${n.state}`).join(', ')}` : '';
  // Rolling back with a node lost: the previous spec is back when everything the live nodes can run
  // runs it. What the lost node cannot host stays pending: reported, not waited for.
  if (input.tolerateFailedTasks && downNodes.length > 0 && running.length < expected) {
    const stuck = wanted.filter((t) => !(t.state === 'running' && trusted(t)));
    const placeable = stuck.filter((t) => t.state !== 'pending' && trusted(t));
    const othersLive = others.filter(trusted);
    if (placeable.length === 0 && othersLive.length === 0 && running.length > 0) {
      const young = running.filter((t) => input.now - t.since < input.stableMs);
      if (young.length === 0)
        return {
          status: 'converged',
          running: running.length,
          degraded: `${running.length} of ${expected} task(s) running: ${stuck.length} cannot be placed while ${downNodes.map((n) => n.name).join(', ')} ${downNodes.length === 1 ? 'is' : 'are'} down`,
        };
    }
  }
  if (running.length < expected) {
    const behind = wanted.find((t) => !(t.state === 'running' && trusted(t)));
    const where =
      behind && !trusted(behind) ? ` on ${nodes.get(behind.nodeId ?? '')?.name ?? 'a lost node'}` : '';
    return {
      status: 'waiting',
      reason: `${running.length} of ${expected} task(s) running${behind ? ` (one is ${behind.state}${where}${behind.message ? `: ${behind.message}` : ''})` : ''}${downNote}`,
    };
  }
  if (others.length > 0) {
    const onLost = others.filter((t) => !trusted(t));
    return {
      status: 'waiting',
      reason: `${others.length} task(s) of the previous image still running${onLost.length ? ` (${onLost.length} on a node that is not ready)` : ''}${downNote}`,
    };
  }
  const young = running.filter((t) => input.now - t.since < input.stableMs);
  if (young.length > 0) {
    return { status: 'waiting', reason: `running for less than ${input.stableMs} ms` };
  }
  return { status: 'converged', running: running.length };
}

function describeFailure(task: TaskView): string {
  const exit = task.exitCode !== undefined && task.exitCode !== 0 ? ` (exit code ${task.exitCode})` : '';
  const why = task.error ?? task.message ?? 'no reason given';
  return `task ${task.id.slice(0, 12)} ${task.state}${exit}: ${why}`;
}
