import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '../../src/service/api/server.ts';
import { listen } from '../../src/service/http/lifecycle.ts';
import { createWebServer } from '../../src/service/web/server/web-server.ts';
import { createHealthServer } from '../../src/service/worker/health-server.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { buildWebRoot, Cleanup } from '../verify/support.ts';

// `release watch --once` (one round, verify's exit code, for cron) and the command's refusals,
// against the reference API, worker and web servers on loopback (the web serving a real build of
// the web client), run in process.

const cleanup = new Cleanup();
const urls = {} as Record<'api' | 'worker' | 'workerBehind' | 'webBehind' | 'closed', string>;
let cwd: string;
let taken: string;

async function serve(server: Server): Promise<string> {
  const url = await listen(server, { host: '127.0.0.1', port: 0 });
  cleanup.add(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return url;
}

beforeAll(async () => {
  cwd = cleanup.tempDir('watch-once');
  writeFileSync(join(cwd, 'release.config.json'), '{}');
  urls.api = await serve(createApiServer({ version: 'v1.4.0' }));
  urls.worker = `${await serve(createHealthServer({ version: 'v1.4.0' }))}/healthz`;
  urls.workerBehind = `${await serve(createHealthServer({ version: 'v1.3.0' }))}/healthz`;
  // The reference web server serving a real build of the web client, two releases behind.
  urls.webBehind = await serve(createWebServer({ root: await buildWebRoot(cleanup, 'v1.2.0') }));
  // A port that refuses: listened on, then closed.
  const closed = createServer();
  const closedUrl = await listen(closed, { host: '127.0.0.1', port: 0 });
  await new Promise<void>((r) => closed.close(() => r()));
  urls.closed = closedUrl;
  taken = new URL(urls.api).host;
}, 240_000);
afterAll(() => cleanup.run());

const once = (args: string[], dir = cwd) =>
  runRelease(['watch', '--once', '--url', urls.api, ...args], { cwd: dir });

describe('release watch --once', () => {
  it('exits 0 for an in-step deployment', async () => {
    const result = await once(['--worker-url', urls.worker, '--name', 'site-a']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^site-a: in step at v1\.4\.0 \(from api\)$/m);
  });

  it('exits 1 on drift, naming the finding, its fix and its rule (also in --json)', async () => {
    const result = await once(['--worker-url', urls.workerBehind]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/x API_WORKER_MISMATCH: /);
    expect(result.stdout).toMatch(/fix: upgrade the API and worker together/);
    expect(result.stdout).toMatch(/rule: skew\.worker: /);
    const json = await once(['--worker-url', urls.workerBehind, '--json']);
    const doc = jsonOf<{ exitCode: number; deployments: { findings: { rule?: { id: string } }[] }[] }>(json);
    expect(doc.exitCode).toBe(1);
    expect(doc.deployments[0]!.findings[0]!.rule!.id).toBe('skew.worker');
  });

  it('exits 3 when a target cannot be read (one round: nothing to hold)', async () => {
    const result = await once(['--worker-url', `${urls.closed}/healthz`]);
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/WORKER_UNREACHABLE: .*connection refused/);
  });

  it("accepts verify's --no-cli (the svc on PATH is left out, as it is by default)", async () => {
    const result = await once(['--worker-url', urls.worker, '--no-cli', '--name', 'site-a']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^site-a: in step at v1\.4\.0 \(from api\)$/m);
  });

  it('exits 0 for a warning the skew policy allows, 1 with --fail-on warn', async () => {
    const dir = cleanup.tempDir('watch-skew');
    writeFileSync(
      join(dir, 'release.config.json'),
      JSON.stringify({ skew: { web: { minor: 1, beyond: 'warn' } } }),
    );
    const args = ['--worker-url', urls.worker, '--web-url', urls.webBehind];
    expect((await once(args, dir)).code).toBe(0);
    const failing = await once([...args, '--fail-on', 'warn'], dir);
    expect(failing.code).toBe(1);
    expect(failing.stdout).toMatch(
      /warn TAG_MISMATCH: .*\n.*fix: .*\n\s+rule: skew\.web: web v1\.2\.0 is 2 minor behind/,
    );
  });
});

describe('release watch refuses bad input with one line and a hint (exit 2)', () => {
  const watch = (args: string[]) => runRelease(['watch', ...args], { cwd });

  it.each([
    [['--url', 'http://127.0.0.1:1'], /--listen <addr:port> is required/],
    [['--url', 'http://127.0.0.1:1', '--listen', '9464'], /--listen "9464" is not addr:port/],
    [
      ['--url', 'http://127.0.0.1:1', '--once', '--interval', 'often'],
      /--interval "often" is not a duration/,
    ],
    [['--once'], /--url <api base URL> or --all is required/],
    [['--all', '--once'], /no deployments are configured for --all/],
    [['--url', 'ftp://x', '--once'], /--url must be http:\/\/ or https:\/\//],
  ])('%j', async (args, message) => {
    const result = await watch(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/hint|--/);
  });

  it('refuses a flag naming one deployment beside --all, as verify does (--compose, --url-per-node)', async () => {
    for (const extra of [['--compose', 'docker-compose.yml'], ['--url-per-node']]) {
      const result = await watch(['--all', '--once', ...extra]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--all reads every URL from the config/);
      const verify = await runRelease(['verify', '--all', ...extra], { cwd });
      expect(verify.code).toBe(2);
      expect(verify.stderr).toMatch(/--all reads every URL from the config/);
    }
  });

  it('says the address is in use when --listen names a taken port', async () => {
    const result = await watch(['--url', urls.api, '--listen', taken]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot listen on 127\.0\.0\.1:\d+: address already in use/);
  });
});
