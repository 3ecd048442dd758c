import { describe, expect, it } from 'vitest';
import {
  judgeSwarmConvergence,
  LOST_NODE_FAILURES_TOLERATED,
  STALLED_AFTER_MS,
  type SwarmConvergenceInput,
} from './swarm-convergence.ts';
import type { NodeView, TaskView } from './swarm-types.ts';

// judgeSwarmConvergence on a multi-node Swarm: what a node that is not `ready` changes.

const NEW = 'reg/acme/service-api:v2.0.0@sha256:new';
const OLD = 'reg/acme/service-api:v1.0.0@sha256:old';
const NOW = 100_000;

const node = (id: string, state = 'ready'): NodeView => ({
  id,
  name: `node${id}`,
  addr: `10.0.0.${id}`,
  state,
  availability: 'active',
});

const task = (id: string, image: string, state: string, nodeId: string, extra: Partial<TaskView> = {}) =>
  ({ id, image, desired: 'running', state, since: NOW - 10_000, nodeId, ...extra }) as TaskView;

const judge = (tasks: TaskView[], extra: Partial<SwarmConvergenceInput> = {}) =>
  judgeSwarmConvergence({
    tasks,
    image: NEW,
    before: new Set(),
    replicas: 3,
    stableMs: 5_000,
    now: NOW,
    ...extra,
  });

describe('judgeSwarmConvergence with nodes', () => {
  it('never counts a task on a down node as running, and names the node', () => {
    const tasks = [
      task('a', NEW, 'running', '1'),
      task('b', NEW, 'running', '2'),
      task('c', NEW, 'running', '3'),
    ];
    expect(judge(tasks, { nodes: [node('1'), node('2'), node('3')] })).toEqual({
      status: 'converged',
      running: 3,
    });
    expect(judge(tasks, { nodes: [node('1'), node('2'), node('3', 'down')] })).toEqual({
      status: 'waiting',
      reason: '2 of 3 task(s) running (one is running on node3); node3 is down',
    });
  });

  it('without a node list every reading is taken as it is (an engine that is no manager)', () => {
    const tasks = [
      task('a', NEW, 'running', '1'),
      task('b', NEW, 'running', '2'),
      task('c', NEW, 'running', '9'),
    ];
    expect(judge(tasks)).toEqual({ status: 'converged', running: 3 });
  });

  it('a new task that ended on a lost node is a casualty, not a failure of the image', () => {
    const tasks = [
      task('a', NEW, 'running', '1'),
      task('b', NEW, 'running', '2'),
      task('c', NEW, 'orphaned', '3', { desired: 'shutdown' }),
      task('d', NEW, 'running', '3'),
    ];
    const nodes = [node('1'), node('2'), node('3')];
    expect(judge(tasks, { nodes })).toMatchObject({ status: 'failed' });
    expect(judge(tasks, { nodes, lostNodes: new Set(['3']) })).toEqual({ status: 'converged', running: 3 });
  });

  it('resumes a Swarm pause caused by the task of a lost node, and fails on any other pause', () => {
    const culprit = 'c'.repeat(25);
    const tasks = [
      task('a', NEW, 'running', '1'),
      task(culprit, NEW, 'shutdown', '3', { desired: 'shutdown' }),
    ];
    const paused = {
      nodes: [node('1'), node('2'), node('3')],
      updateState: 'paused',
      updateMessage: `update paused due to failure or early termination of task ${culprit}`,
    };
    expect(judge(tasks, { ...paused, lostNodes: new Set(['3']) })).toEqual({
      status: 'waiting',
      resume: true,
      reason: `Swarm paused the update when task ${culprit.slice(0, 12)} ended on node3, a node lost during the upgrade: resuming it`,
    });
    expect(judge(tasks, { ...paused, lostNodes: new Set(['2']) })).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('Swarm paused the update'),
    });
  });

  it('a task failing on a live node while a lost node is re-placed is a casualty, a few times', () => {
    // Swarm put node2's replica on node1 while node1's own task was still stopping: one host port.
    const nodes = [node('1'), node('2'), node('3')];
    const crowded = (id: string) => task(id, NEW, 'failed', '1', { desired: 'shutdown', exitCode: 2 });
    const tasks = [task('a', NEW, 'running', '1'), crowded('x1'), task('c', NEW, 'running', '3')];
    expect(judge(tasks, { nodes, lostNodes: new Set(['2']) })).toEqual({
      status: 'waiting',
      reason: '2 of 3 task(s) running',
    });
    // No node lost: the image's failure.
    expect(judge(tasks, { nodes })).toMatchObject({ status: 'failed' });
    // A few more (each restart meets the port still held): still the loss's doing.
    const few = ['x2', 'x3', 'x4', 'x5'].map(crowded);
    expect(1 + few.length).toBe(LOST_NODE_FAILURES_TOLERATED);
    expect(judge([...tasks, ...few], { nodes, lostNodes: new Set(['2']) })).toMatchObject({
      status: 'waiting',
    });
    // More than that: an image that fails everywhere still fails.
    expect(judge([...tasks, ...few, crowded('x6')], { nodes, lostNodes: new Set(['2']) })).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('failed (exit code 2)'),
    });
    // Swarm paused the update on it: resumed, and the reason says why.
    const culprit = 'x'.repeat(25);
    const paused = [task('a', NEW, 'running', '1'), crowded(culprit)];
    expect(
      judge(paused, {
        nodes,
        lostNodes: new Set(['2']),
        updateState: 'paused',
        updateMessage: `update paused due to failure or early termination of task ${culprit}`,
      }),
    ).toEqual({
      status: 'waiting',
      resume: true,
      reason: `Swarm paused the update when task ${culprit.slice(0, 12)} failed on node1 while a lost node's tasks were re-placed: resuming it`,
    });
  });

  it('a rollback with a node down converges, degraded, once every live node runs the spec', () => {
    const nodes = [node('1'), node('2'), node('3', 'down')];
    const tasks = [
      task('a', NEW, 'running', '1'),
      task('b', NEW, 'running', '2'),
      task('c', NEW, 'pending', '', { message: 'no suitable node' }),
      task('x', OLD, 'running', '3'),
    ];
    expect(judge(tasks, { nodes, tolerateFailedTasks: true })).toEqual({
      status: 'converged',
      running: 2,
      degraded: '2 of 3 task(s) running: 1 cannot be placed while node3 is down',
    });
    // Not while a live node still runs the previous image, nor while a running task is young.
    expect(
      judge([...tasks, task('y', OLD, 'running', '2')], { nodes, tolerateFailedTasks: true }),
    ).toMatchObject({ status: 'waiting' });
    expect(
      judge(
        tasks.map((t) => (t.id === 'a' ? { ...t, since: NOW - 1_000 } : t)),
        { nodes, tolerateFailedTasks: true },
      ),
    ).toMatchObject({ status: 'waiting' });
    // An upgrade (not a rollback) never settles for fewer than it wants.
    expect(judge(tasks, { nodes })).toMatchObject({ status: 'waiting' });
  });

  it('forces a new pass when Swarm has had no update under way for a while and keeps a task of another image', () => {
    // After a node loss Swarm can leave a slot on the previous image and report no update under
    // way: nothing would move that slot again.
    const nodes = [node('1'), node('2'), node('3')];
    const tasks = [
      task('a', NEW, 'running', '1'),
      task('b', NEW, 'running', '2'),
      task('x', OLD, 'running', '3'),
    ];
    expect(judge(tasks, { nodes, idleMs: STALLED_AFTER_MS })).toEqual({
      status: 'waiting',
      force: true,
      reason:
        'Swarm has had no update under way for 15 s and still runs 1 task(s) of another image (on node3): forcing a new pass over every task',
    });
    // Not before the while is up.
    expect(judge(tasks, { nodes, idleMs: STALLED_AFTER_MS - 1 })).toEqual({
      status: 'waiting',
      reason: '2 of 3 task(s) running',
    });
    // Not for an old task Swarm is stopping (a worker draining through a long grace period).
    const draining = [
      ...tasks.slice(0, 2),
      task('c', NEW, 'running', '3'),
      task('x', OLD, 'running', '3', { desired: 'shutdown' }),
    ];
    expect(judge(draining, { nodes, idleMs: 60_000 })).toEqual({
      status: 'waiting',
      reason: '1 task(s) of the previous image still running',
    });
    // Not for a task of the target not yet started (a restart delay, a placement): named instead.
    const parked = [...tasks.slice(0, 2), task('c', NEW, 'ready', '3', { desired: 'ready' })];
    expect(judge(parked, { nodes, idleMs: 60_000 })).toEqual({
      status: 'waiting',
      reason: '2 of 3 task(s) running (one is ready, not yet started)',
    });
    // Not while a node is down (forcing would only restart the live ones), nor in a rollback.
    const down = [node('1'), node('2'), node('3', 'down')];
    const keptOnLive = [...tasks.slice(0, 2), task('x', OLD, 'running', '1')];
    expect(judge(keptOnLive, { nodes: down, idleMs: 60_000 })).not.toHaveProperty('force');
    expect(judge(tasks, { nodes, idleMs: 60_000, tolerateFailedTasks: true })).not.toHaveProperty('force');
  });
});
