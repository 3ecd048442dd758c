import { type NodeView, nodeIsReady, type TaskView } from './swarm-types.ts';

/** Task states after which a task will never run again. */
const FAILED_STATES = new Set(['failed', 'rejected']);
/** Ended on its own: a long-running service's task should never do that. */
const ENDED_STATES = new Set(['complete', 'orphaned', 'remove']);

export interface SwarmConvergenceInput {
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
  /**
   * For how long Swarm has had no update of the service under way (no update status, or
   * `completed`), counted by the caller from its polls since its last write.
   */
  idleMs?: number;
}

/**
 * How long Swarm may be doing nothing (no update under way) while it keeps a task of another
 * image running before the upgrade forces a new pass. Far above the moment between an update's
 * last slot and its status, so only a stall reaches it.
 */
export const STALLED_AFTER_MS = 15_000;

/** How many failures on live nodes after a node loss are taken as its casualties, at most. */
export const LOST_NODE_FAILURES_TOLERATED = 5;

export type SwarmConvergence =
  | { status: 'converged'; running: number; degraded?: string }
  /** `resume`: write the spec again (a paused update); `force`: force a new pass over every task. */
  | { status: 'waiting'; reason: string; resume?: true; force?: true }
  | { status: 'failed'; reason: string; task?: TaskView };

/**
 * Has a service converged on `image`? Converged: as many tasks of the image running as it should
 * have, each running for at least `stableMs`, and no task of another image still running.
 * Failed at once: a task of this update that failed, was rejected or ended (a crash on start, an
 * unhealthy container, an image the node cannot pull), or Swarm paused the update. Pure: the
 * adapter polls and hands the tasks in.
 */
export function judgeSwarmConvergence(input: SwarmConvergenceInput): SwarmConvergence {
  const nodes = new Map((input.nodes ?? []).map((n) => [n.id, n]));
  // Without a node list (an engine that is no manager), every task's reading is taken as it is.
  const trusted = (t: TaskView) => !input.nodes || nodeIsReady(nodes.get(t.nodeId ?? ''));
  const lost = (t: TaskView) => t.nodeId !== undefined && (input.lostNodes?.has(t.nodeId) ?? false);
  const fresh = input.tasks.filter((t) => !input.before.has(t.id));
  const mine = fresh.filter((t) => t.image === input.image);
  const ended = mine.filter((t) => FAILED_STATES.has(t.state) || ENDED_STATES.has(t.state));
  // After a node loss Swarm re-places the lost node's replicas, and can put one on a live node
  // whose own task of the service is still stopping (a task Swarm wants gone no longer counts
  // against the placement limit); on a host port the newcomer fails at once, and again at each
  // restart until the old one is gone. With a node lost during this wait, such failures on live
  // nodes are the loss's doing, up to a few: an image that fails everywhere still fails. (Which
  // task held the port cannot be told afterwards: it has stopped by the next look.)
  const failedLive = ended.filter((t) => !lost(t));
  const reshuffled = (input.lostNodes?.size ?? 0) > 0 && failedLive.length <= LOST_NODE_FAILURES_TOLERATED;
  const casualty = (t: TaskView) => lost(t) || (reshuffled && failedLive.includes(t));
  // A task that ended because its node was lost says nothing about the image.
  const broken = ended.find((t) => !casualty(t));
  if (broken && !input.tolerateFailedTasks)
    return { status: 'failed', reason: describeFailure(broken), task: broken };
  if (input.updateState === 'paused' || input.updateState?.startsWith('rollback')) {
    // Swarm pauses an update when a task of it ends early, and a task placed on a node just before
    // the node was lost ends when the node comes back. That is the node's doing: resume.
    const named = /task ([a-z0-9]{20,})/.exec(input.updateMessage ?? '')?.[1];
    const culprit = named ? input.tasks.find((t) => t.id === named) : undefined;
    if (input.updateState === 'paused' && culprit && casualty(culprit)) {
      const node = nodes.get(culprit.nodeId ?? '')?.name ?? culprit.nodeId;
      return {
        status: 'waiting',
        resume: true,
        reason: lost(culprit)
          ? `Swarm paused the update when task ${culprit.id.slice(0, 12)} ended on ${node}, a node lost during the upgrade: resuming it`
          : `Swarm paused the update when task ${culprit.id.slice(0, 12)} failed on ${node} while a lost node's tasks were re-placed: resuming it`,
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
  // Swarm can stop short after a node loss: a slot ends up on the previous image (its updater
  // fails on the slot, "was already shut down when reached by updater", or restarts it from the
  // old spec) and Swarm reports no update under way. Nothing will move that slot again, so after
  // a while of Swarm idle with a task of another image that Swarm itself wants running, every node
  // back, the upgrade forces a new pass (`docker service update --force`: Swarm replaces every
  // task, one slot at a time under the service's update config). Not for an old task Swarm is
  // stopping (a long stop grace period drains a worker), not for a task waiting to be placed or
  // restarted (a pass would not help), and not in a rollback, which must end on the user's spec.
  const keptOld = others.filter((t) => t.desired === 'running' && trusted(t));
  if (
    keptOld.length > 0 &&
    !input.tolerateFailedTasks &&
    downNodes.length === 0 &&
    (input.idleMs ?? 0) >= STALLED_AFTER_MS
  ) {
    const where = [...new Set(keptOld.map((t) => nodes.get(t.nodeId ?? '')?.name ?? t.nodeId ?? '?'))];
    return {
      status: 'waiting',
      force: true,
      reason: `Swarm has had no update under way for ${Math.round((input.idleMs ?? 0) / 1000)} s and still runs ${keptOld.length} task(s) of another image (on ${where.join(', ')}): forcing a new pass over every task`,
    };
  }
  if (running.length < expected) {
    // A task of the image that Swarm has not yet asked to run (desired `ready`) explains the wait
    // as well as one that is starting.
    const behind =
      wanted.find((t) => !(t.state === 'running' && trusted(t))) ??
      input.tasks.find((t) => t.image === input.image && t.desired === 'ready');
    const where =
      behind && !trusted(behind) ? ` on ${nodes.get(behind.nodeId ?? '')?.name ?? 'a lost node'}` : '';
    return {
      status: 'waiting',
      reason: `${running.length} of ${expected} task(s) running${behind ? ` (one is ${behind.state}${where}${behind.desired === 'ready' ? ', not yet started' : ''}${behind.message ? `: ${behind.message}` : ''})` : ''}${downNote}`,
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
