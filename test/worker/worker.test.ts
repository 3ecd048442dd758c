import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleArtifact } from '../../src/service/build/bundle.ts';
import { jsonBody, request, WORKER_BIN } from '../api/support.ts';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';

const WORKER_READY =
  /^service-worker (\S+) \(source (env|git|none)\) health on (?<url>http:\/\/\S+)\/healthz$/m;

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function startWorker(env: Record<string, string>, bin = WORKER_BIN): Promise<StartedProcess> {
  const worker = await startProcess(bin, {
    env: { WORKER_HEALTH_PORT: '0', ...env },
    readyPattern: WORKER_READY,
  });
  cleanup.push(() => worker.stop());
  return worker;
}

describe('service-worker', () => {
  it('prints one line and reports its version on /healthz', async () => {
    const worker = await startWorker({ SERVICE_VERSION: 'v1.2.3' });
    expect(worker.stdout().trim().split('\n')).toEqual([
      `service-worker v1.2.3 (source env) health on ${worker.url}/healthz`,
    ]);
    const reply = await request(worker.url, '/healthz');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(jsonBody(reply)).toStrictEqual({ version: 'v1.2.3', status: 'ok' });
  });

  it('keeps the version exactly as set, without a v too', async () => {
    const worker = await startWorker({ SERVICE_VERSION: '1.2.3' });
    expect(jsonBody(await request(worker.url, '/healthz'))).toStrictEqual({ version: '1.2.3', status: 'ok' });
  });

  it('HEAD, 405 and 404', async () => {
    const worker = await startWorker({ SERVICE_VERSION: 'v1.2.3' });
    const head = await request(worker.url, '/healthz', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    const post = await request(worker.url, '/healthz', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD');
    const other = await request(worker.url, '/api/version');
    expect(other.status).toBe(404);
    expect(jsonBody(other)).toEqual({ error: 'not found' });
  });

  it('honours WORKER_HEALTH_HOST and refuses a bad port', async () => {
    const worker = await startWorker({ SERVICE_VERSION: 'v1.2.3', WORKER_HEALTH_HOST: '::1' });
    expect(worker.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect((await request(worker.url, '/healthz')).status).toBe(200);
    await expect(startWorker({ WORKER_HEALTH_PORT: '99999' })).rejects.toThrow(
      /WORKER_HEALTH_PORT="99999" is not a port/,
    );
  });

  it('exits 0 on SIGTERM', async () => {
    const worker = await startWorker({ SERVICE_VERSION: 'v1.2.3' });
    expect(await worker.stop()).toEqual({ code: 0, signal: null });
    expect(worker.stderr()).toContain('service-worker: stopped');
  });

  it('bundled and run outside any checkout, it reports unknown', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sr-worker-bundle-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const bundle = join(dir, 'service-worker.mjs');
    await bundleArtifact('worker', bundle);
    const worker = await startWorker({ GIT_CEILING_DIRECTORIES: dirname(dir) }, bundle);
    expect(worker.ready[2]).toBe('none');
    expect(jsonBody(await request(worker.url, '/healthz'))).toStrictEqual({
      version: 'unknown',
      status: 'ok',
    });
  });
});
