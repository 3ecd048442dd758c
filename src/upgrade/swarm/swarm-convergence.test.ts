import { describe, expect, it } from 'vitest';
import { judgeSwarmConvergence, type SwarmConvergenceInput } from './swarm-convergence.ts';
import type { TaskView } from './swarm-types.ts';

const NEW = 'reg/acme/service-api:v2.0.0@sha256:new';
const OLD = 'reg/acme/service-api:v1.0.0@sha256:old';
const NOW = 100_000;

const task = (id: string, image: string, state: string, extra: Partial<TaskView> = {}): TaskView => ({
  id,
  image,
  desired: 'running',
  state,
  since: NOW - 10_000,
  ...extra,
});

const judge = (tasks: TaskView[], extra: Partial<SwarmConvergenceInput> = {}) =>
  judgeSwarmConvergence({
    tasks,
    image: NEW,
    before: new Set(['old1']),
    replicas: 1,
    stableMs: 5_000,
    now: NOW,
    ...extra,
  });

describe('judgeSwarmConvergence', () => {
  it('converged: the new task runs, long enough, and the old one stopped', () => {
    expect(
      judge([task('old1', OLD, 'shutdown', { desired: 'shutdown' }), task('n1', NEW, 'running')]),
    ).toEqual({ status: 'converged', running: 1 });
  });

  it('waits while the new task starts, while the old one still runs (start-first), and while it is young', () => {
    expect(
      judge([task('old1', OLD, 'running'), task('n1', NEW, 'preparing', { message: 'pulling' })]),
    ).toEqual({
      status: 'waiting',
      reason: '0 of 1 task(s) running (one is preparing: pulling)',
    });
    expect(judge([task('old1', OLD, 'running'), task('n1', NEW, 'running')])).toMatchObject({
      status: 'waiting',
      reason: '1 task(s) of the previous image still running',
    });
    expect(judge([task('n1', NEW, 'running', { since: NOW - 1_000 })])).toMatchObject({ status: 'waiting' });
  });

  it('fails at once on a new task that failed, was rejected or ended, with its error', () => {
    const failed = judge([
      task('old1', OLD, 'shutdown'),
      task('n1', NEW, 'failed', { desired: 'shutdown', error: 'task: non-zero exit (1)', exitCode: 1 }),
      task('n2', NEW, 'starting'),
    ]);
    expect(failed).toMatchObject({
      status: 'failed',
      reason: 'task n1 failed (exit code 1): task: non-zero exit (1)',
    });
    expect(judge([task('n1', NEW, 'rejected', { error: 'No such image' })])).toMatchObject({
      status: 'failed',
    });
    expect(judge([task('n1', NEW, 'complete', { message: 'finished' })])).toMatchObject({
      status: 'failed',
      reason: 'task n1 complete: finished',
    });
  });

  it('rolling back, waits through a failed task while Swarm starts another, and converges on it', () => {
    const failedThenRetried = [
      task('old1', OLD, 'shutdown'),
      task('n1', NEW, 'failed', { desired: 'shutdown', error: 'task: non-zero exit (2)', exitCode: 2 }),
      task('n2', NEW, 'starting'),
    ];
    expect(judge(failedThenRetried, { tolerateFailedTasks: true })).toMatchObject({ status: 'waiting' });
    const retried = [...failedThenRetried.slice(0, 2), task('n2', NEW, 'running')];
    expect(judge(retried, { tolerateFailedTasks: true })).toEqual({ status: 'converged', running: 1 });
    // Swarm giving up (pausing) still ends the wait.
    expect(judge(failedThenRetried, { tolerateFailedTasks: true, updateState: 'paused' })).toMatchObject({
      status: 'failed',
    });
  });

  it("ignores what happened before this update (an old task's crash is history)", () => {
    const old = task('old1', NEW, 'failed', { desired: 'shutdown' });
    expect(judge([old, task('n1', NEW, 'running')])).toEqual({ status: 'converged', running: 1 });
  });

  it('a rollback to tasks that never stopped converges at once (they are stable)', () => {
    expect(
      judgeSwarmConvergence({
        tasks: [
          task('keep', OLD, 'running', { since: 0 }),
          task('n1', NEW, 'shutdown', { desired: 'shutdown' }),
        ],
        image: OLD,
        before: new Set(['keep', 'n1']),
        replicas: 1,
        stableMs: 5_000,
        now: NOW,
      }),
    ).toEqual({ status: 'converged', running: 1 });
  });

  it('fails when Swarm paused or rolled back the update itself', () => {
    expect(
      judge([task('n1', NEW, 'running')], {
        updateState: 'paused',
        updateMessage: 'update paused due to failure',
      }),
    ).toEqual({
      status: 'failed',
      reason: 'Swarm paused the update: update paused due to failure',
    });
  });

  it('global services expect one task per node running one', () => {
    const tasks = [task('n1', NEW, 'running', { nodeId: 'a' }), task('n2', NEW, 'starting', { nodeId: 'b' })];
    expect(judge(tasks, { replicas: undefined })).toMatchObject({
      status: 'waiting',
      reason: expect.stringMatching(/^1 of 2/),
    });
    expect(judge([task('n1', NEW, 'running', { nodeId: 'a' })], { replicas: undefined })).toMatchObject({
      status: 'converged',
    });
  });
});
