import { describe, expect, it } from 'vitest';
import { judgeComposeConvergence } from './compose-convergence.ts';
import type { ComposeContainer } from './compose-types.ts';

const V1 = 'sha256:' + '1'.repeat(64);
const V2 = 'sha256:' + '2'.repeat(64);

function c(
  id: string,
  service: string,
  digest: string,
  over: Partial<ComposeContainer> = {},
): ComposeContainer {
  return {
    id,
    name: `${service}-${id}`,
    service,
    image: '',
    digest,
    state: 'running',
    exitCode: 0,
    restartCount: 0,
    version: undefined,
    oneOff: false,
    ...over,
  };
}

const worker = { service: 'worker', digest: V2, replicas: 2, oneShot: false };
const judge = (containers: ComposeContainer[], extra: { tolerate?: boolean; now?: number } = {}) =>
  judgeComposeConvergence({
    expected: [worker],
    containers,
    runningSince: new Map(containers.map((x) => [x.id, 0])),
    stableMs: 1_000,
    now: extra.now ?? 5_000,
    ...(extra.tolerate ? { tolerate: true } : {}),
  });

describe('judgeComposeConvergence', () => {
  it('converged: every replica on the digest, running long enough', () => {
    expect(judge([c('a', 'worker', V2), c('b', 'worker', V2)])).toEqual({ status: 'converged' });
  });

  it('waits for the second replica, and for one still on the old digest', () => {
    expect(judge([c('a', 'worker', V2)]).status).toBe('waiting');
    const mixed = judge([c('a', 'worker', V2), c('b', 'worker', V2), c('c', 'worker', V1)]);
    expect(mixed).toMatchObject({ status: 'waiting', reason: expect.stringContaining('another image') });
  });

  it('waits through the monitor window and a starting health check', () => {
    expect(judge([c('a', 'worker', V2), c('b', 'worker', V2)], { now: 500 }).status).toBe('waiting');
    expect(judge([c('a', 'worker', V2), c('b', 'worker', V2, { health: 'starting' })]).status).toBe(
      'waiting',
    );
  });

  it('fails at once on an exited, restarting or unhealthy container of the target', () => {
    expect(judge([c('a', 'worker', V2, { state: 'exited', exitCode: 1 })])).toMatchObject({
      status: 'failed',
      reason: 'worker: container worker-a exited with code 1',
    });
    expect(judge([c('a', 'worker', V2, { state: 'restarting', restartCount: 2 })])).toMatchObject({
      status: 'failed',
    });
    expect(judge([c('a', 'worker', V2, { health: 'unhealthy', healthLog: 'HTTP 404' })])).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('unhealthy (last check: HTTP 404)'),
    });
  });

  it('rolling back, a crash is waited through until the deadline', () => {
    expect(judge([c('a', 'worker', V2, { state: 'exited', exitCode: 1 })], { tolerate: true }).status).toBe(
      'waiting',
    );
  });

  it('a one-shot is done once it exited 0, failed on any other code', () => {
    const init = { service: 'init', digest: V2, replicas: 1, oneShot: true };
    const run = (x: ComposeContainer) =>
      judgeComposeConvergence({
        expected: [init],
        containers: [x],
        runningSince: new Map(),
        stableMs: 0,
        now: 0,
      });
    expect(run(c('i', 'init', V2, { state: 'exited', exitCode: 0 }))).toEqual({ status: 'converged' });
    expect(run(c('i', 'init', V2, { state: 'exited', exitCode: 3 }))).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('exited with code 3'),
    });
    expect(run(c('i', 'init', V2)).status).toBe('waiting');
    // The old run's container does not count for the new image.
    expect(run(c('i', 'init', V1, { state: 'exited', exitCode: 0 })).status).toBe('waiting');
  });
});
