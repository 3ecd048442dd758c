import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '../../src/service/api/server.ts';
import { listen } from '../../src/service/http/lifecycle.ts';
import { FlapGuard } from '../../src/watch/flap-guard.ts';
import { type RoundOptions, runRound } from '../../src/watch/round.ts';
import { Cleanup } from '../verify/support.ts';

// One watch round at a time against servers on loopback: the flap guard over a worker that fails
// once, then twice; the round's deadline against a worker that never answers. The API is the
// reference one; the worker is a stand-in on purpose: it fails or hangs at the exact round the
// test picks, which the reference worker (healthy for life) cannot be made to do.

const cleanup = new Cleanup();
const worker = { mode: 'ok' as 'ok' | 'fail' | 'hang' };
const hanging = new Set<Socket>();
let api: string;
let workerUrl: string;

async function serve(server: Server): Promise<string> {
  const url = await listen(server, { host: '127.0.0.1', port: 0 });
  cleanup.add(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of hanging) socket.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return url;
}

beforeAll(async () => {
  api = await serve(createApiServer({ version: 'v1.4.0' }));
  const health = createServer((req, res) => {
    if (worker.mode === 'hang') {
      hanging.add(req.socket);
      return;
    }
    if (worker.mode === 'fail') {
      res.writeHead(503).end('restarting');
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ version: 'v1.4.0', status: 'ok' }));
  });
  workerUrl = `${await serve(health)}/healthz`;
});
afterAll(() => cleanup.run());

const options: RoundOptions = {
  env: {},
  cwd: process.cwd(),
  timeoutMs: 5_000,
  cli: false,
  images: { api: 'service-api', worker: 'service-worker', web: 'service-web' },
  concurrency: 4,
  targetTimeoutMs: 15_000,
  roundTimeoutMs: 15_000,
};

describe('a watch round', () => {
  it('holds one failed probe, calls the second in a row unreachable, and recovers', async () => {
    const guard = new FlapGuard();
    const targets = [{ name: 'site-a', url: api, workerUrl }];
    const round = () => runRound(targets, options, guard);
    worker.mode = 'ok';
    expect((await round()).reports[0]!.exitCode).toBe(0);

    worker.mode = 'fail';
    const once = await round();
    expect(once.reports[0]!.exitCode).toBe(0);
    expect(once.reports[0]!.artifacts.find((a) => a.name === 'worker')!.detail).toMatch(/^held: /);
    expect(once.failures).toEqual([{ deployment: 'site-a', artifact: 'worker', reason: 'http_status' }]);

    const twice = await round();
    expect(twice.reports[0]!.exitCode).toBe(3);
    expect(twice.reports[0]!.inStep).toBe(false);
    expect(twice.reports[0]!.findings.map((f) => f.code)).toEqual(['WORKER_UNREACHABLE']);

    worker.mode = 'ok';
    expect((await round()).reports[0]!.exitCode).toBe(0);
  });

  it('ends a round at its deadline when a target never answers, and says it was cut short', async () => {
    worker.mode = 'hang';
    const started = performance.now();
    const round = await runRound(
      [{ name: 'site-a', url: api, workerUrl }],
      { ...options, timeoutMs: 60_000, targetTimeoutMs: 60_000, roundTimeoutMs: 500 },
      new FlapGuard(),
    );
    // The probe's and the deployment's deadlines are a minute: only the round's ended it.
    expect(performance.now() - started).toBeLessThan(30_000);
    expect(round.complete).toBe(false);
    expect(round.failures).toEqual([{ deployment: 'site-a', artifact: 'worker', reason: 'deadline' }]);
    worker.mode = 'ok';
  });
});
