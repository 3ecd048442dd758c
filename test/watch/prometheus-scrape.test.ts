import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, retryOnPortClash } from '../../src/processes/free-port.ts';
import { type RunningPrometheus, startPrometheus } from '../helpers/prometheus.ts';
import { RELEASE_BIN } from '../helpers/run-release.ts';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';
import { Cleanup, startApi, WORKER_BIN } from '../verify/support.ts';

// A real Prometheus scrapes the real `release watch` (a subprocess, the compiled bin), which
// watches a deployment made of the reference `service-api` and `service-worker` processes. The
// worker is then restarted on another version on the same port, as an operator's mistake would,
// and everything is asserted through Prometheus's own query API. Rounds and scrapes are 1 s;
// every wait is a poll with a generous deadline, never a sleep.

const cleanup = new Cleanup();
let prometheus: RunningPrometheus;
let watch: StartedProcess;
let worker: StartedProcess;
let workerPort: number;

function startWorkerOn(port: number, version: string): Promise<StartedProcess> {
  return startProcess(WORKER_BIN, {
    env: { SERVICE_VERSION: version, WORKER_HEALTH_HOST: '127.0.0.1', WORKER_HEALTH_PORT: String(port) },
    readyPattern: /health on (?<url>http:\/\/\S+)/,
  });
}

beforeAll(async () => {
  const cwd = cleanup.tempDir('watch');
  writeFileSync(join(cwd, 'release.config.json'), '{}');
  const api = await startApi(cleanup, 'v1.4.0');
  // The worker keeps its port across the restart: the watch was told one --worker-url.
  worker = await retryOnPortClash(async () => {
    workerPort = await freePort();
    return startWorkerOn(workerPort, 'v1.4.0');
  });
  cleanup.add(() => worker.stop());
  watch = await cleanup.track(
    startProcess(RELEASE_BIN, {
      args: [
        'watch',
        '--url',
        api.url,
        '--worker-url',
        `${worker.url}`,
        '--name',
        'site-a',
        '--listen',
        '127.0.0.1:0',
        '--interval',
        '1s',
      ],
      cwd,
      readyPattern: /serving (http:\/\/\S+)/,
    }),
  );
  prometheus = await startPrometheus({ targets: [new URL(watch.url).host], scrapeIntervalS: 1 });
  cleanup.add(() => prometheus.stop());
}, 90_000);

afterAll(() => cleanup.run());

/** Poll a query until `accept` holds; fail with the last answer and both logs. */
async function until<T>(
  what: string,
  read: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 40_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read().catch(() => undefined as T);
    if (last !== undefined && accept(last)) return last;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `${what}: not seen within ${timeoutMs} ms; last ${JSON.stringify(last)}\nwatch: ${watch.stdout()}${watch.stderr()}\nprometheus: ${prometheus.log().slice(-2000)}`,
  );
}

const inStep = () => prometheus.query('service_release_in_step{deployment="site-a"}');
const workerVersions = async () =>
  (
    await prometheus.query(
      'last_over_time(service_release_artifact_info{deployment="site-a",artifact="worker"}[10m])',
    )
  ).map((s) => s.metric['version']);

describe('release watch scraped by a real Prometheus', () => {
  it('reports an in-step deployment as in_step 1, with the worker version it reads', async () => {
    await until('in_step 1', inStep, (r) => r.length === 1 && r[0]!.value === 1);
    const skew = await prometheus.query('service_release_skew_status{deployment="site-a",pair="worker-api"}');
    expect(skew.map((s) => s.value)).toEqual([0]);
    expect(await workerVersions()).toEqual(['v1.4.0']);
    const up = await prometheus.query('up{job="release-watch"}');
    expect(up.map((s) => s.value)).toEqual([1]);
  });

  it('turns in_step to 0 once the worker runs another version, and artifact_info names both', async () => {
    await worker.stop();
    // Same port (the watch was given one URL); a clash here can only be another test's explicit
    // pick landing on it in the moment between, so wait and try again rather than move.
    worker = await retryOnPortClash(
      () =>
        startWorkerOn(workerPort, 'v1.3.0').catch(async (error) => {
          await new Promise((r) => setTimeout(r, 500));
          throw error;
        }),
      5,
    );
    await until('in_step 0', inStep, (r) => r.length === 1 && r[0]!.value === 0);
    await until(
      'skew_status worker-api 2',
      () => prometheus.query('service_release_skew_status{deployment="site-a",pair="worker-api"}'),
      (r) => r.length === 1 && r[0]!.value === 2,
    );
    const versions = await until('both worker versions', workerVersions, (v) => v.length === 2);
    expect(versions.sort()).toEqual(['v1.3.0', 'v1.4.0']);
    // Now only the new one is current.
    const current = await prometheus.query(
      'service_release_artifact_info{deployment="site-a",artifact="worker"}',
    );
    expect(current.map((s) => s.metric['version'])).toEqual(['v1.3.0']);
    expect(watch.stdout()).toMatch(
      /site-a: DRIFT at v1\.4\.0 \(from api\): 1 finding \(API_WORKER_MISMATCH\)/,
    );
  });

  it('stops after the round under way on SIGTERM, exit 0', async () => {
    const exit = await watch.stop({ timeoutMs: 15_000 });
    expect(exit).toEqual({ code: 0, signal: null });
    expect(watch.stdout()).toMatch(/SIGTERM: stopping after the round under way/);
  });
});
