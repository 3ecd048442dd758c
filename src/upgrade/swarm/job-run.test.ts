import { describe, expect, it } from 'vitest';
import { judgeJobRun } from './job-run.ts';
import type { TaskView } from './swarm-types.ts';

const NEW = 'acme/app:v2@sha256:2';
const OLD = 'acme/app:v1@sha256:1';
const task = (id: string, state: string, image = NEW, extra: Partial<TaskView> = {}): TaskView => ({
  id,
  image,
  desired: 'complete',
  state,
  since: 0,
  ...extra,
});

describe('judgeJobRun', () => {
  const before = new Set(['old']);
  it.each([
    ['no task of the new run yet', [task('old', 'complete', OLD)], 'waiting'],
    [
      'the old run completed, the new one is starting',
      [task('old', 'complete', OLD), task('n1', 'starting')],
      'waiting',
    ],
    ['the new run is running', [task('n1', 'running')], 'waiting'],
    ['the new run completed', [task('n1', 'complete')], 'completed'],
    [
      'the new run failed',
      [task('n1', 'failed', NEW, { exitCode: 1, error: 'task: non-zero exit (1)' })],
      'failed',
    ],
    ['the new run was rejected', [task('n1', 'rejected', NEW, { error: 'no such image' })], 'failed'],
    ['a task shut down, its replacement running', [task('n1', 'shutdown'), task('n2', 'running')], 'waiting'],
    ['every task of the run shut down', [task('n1', 'shutdown')], 'failed'],
    ['a task of another image completed (not this run)', [task('n1', 'complete', OLD)], 'waiting'],
  ] as const)('%s', (_, tasks, status) => {
    expect(judgeJobRun({ tasks: [...tasks], before, image: NEW }).status).toBe(status);
  });

  it('names the failed task and its exit code', () => {
    const verdict = judgeJobRun({
      tasks: [task('abcdefabcdef99', 'failed', NEW, { exitCode: 3 })],
      before,
      image: NEW,
    });
    expect(verdict).toEqual({ status: 'failed', reason: 'task abcdefabcdef failed with code 3' });
  });
});
