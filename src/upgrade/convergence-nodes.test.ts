import { describe, expect, it } from 'vitest';
import { type ConvergenceInput, judgeConvergence } from './convergence.ts';
import type { NodeView, TaskView } from './swarm-types.ts';

// judgeConvergence on a multi-node Swarm: what a node that is not `ready` changes.

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

const judge = (tasks: TaskView[], extra: Partial<ConvergenceInput> = {}) =>
  judgeConvergence({
    tasks,
    image: NEW,
    before: new Set(),
    replicas: 3,
    stableMs: 5_000,
    now: NOW,
    ...extra,
  });

describe('judgeConvergence with nodes', () => {
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
});
