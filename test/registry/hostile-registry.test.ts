import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { RELEASE_BIN } from '../helpers/run-release.ts';

// `release mirror --from <fake registry>` as a real process under /usr/bin/time, against a
// node:http registry on loopback that misbehaves one way per test: each is refused with exit 3,
// the limit or deadline named, and the process's peak RSS stays under 200 MB (it was 382 MB for
// a 60 MB manifest and 300 MB for an endless body, buffered whole before).

type Mode =
  | 'huge-manifest'
  | 'endless'
  | 'stall'
  | 'endless-token'
  | 'foreign-realm'
  | 'config-stall'
  | 'config-endless';
const MB = 1024 * 1024;
const RSS_LIMIT_KB = 200 * 1024;

let mode: Mode;
let server: Server;
let port: number;
let project: string;
const tokenRequests: string[] = [];

/** Write `chunk` until the client goes away (or `limit` bytes): a body that never ends. */
function pour(res: ServerResponse, chunk: Buffer, limit = Number.POSITIVE_INFINITY): void {
  // A HEAD answer has no body (node drops what is written and never pushes back, so pouring
  // would never yield): headers only, as a registry answers it; the GET that follows gets the body.
  if (res.req.method === 'HEAD') return void res.end();
  let sent = 0;
  const more = () => {
    while (sent < limit && !res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    if (!res.destroyed) res.end();
  };
  res.on('close', () => res.removeAllListeners('drain'));
  more();
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '';
  if (url.startsWith('/token')) {
    tokenRequests.push(`${req.headers.host} ${req.headers.authorization ?? '-'}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    return void pour(res, Buffer.from('{"token":"'.padEnd(64 * 1024, 'a')));
  }
  if (url === '/v2/' || url.startsWith('/v2/')) {
    if (mode === 'endless-token' || mode === 'foreign-realm') {
      const host = mode === 'foreign-realm' ? 'localhost' : '127.0.0.1';
      res.writeHead(401, {
        'www-authenticate': `Bearer realm="http://${host}:${port}/token",service="fake"`,
        'content-type': 'application/json',
      });
      return void res.end('{"errors":[{"code":"UNAUTHORIZED"}]}');
    }
    if (mode.startsWith('config-')) {
      // A sound manifest whose config blob then stalls or never ends.
      if (url.includes('/blobs/')) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        if (mode === 'config-endless') return void pour(res, Buffer.alloc(64 * 1024, 0x20));
        return void res.write('{');
      }
      if (!url.includes('/manifests/v1.0.0')) {
        res.writeHead(404);
        return void res.end();
      }
      const config = {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: `sha256:${'c'.repeat(64)}`,
        size: 100,
      };
      res.writeHead(200, { 'content-type': 'application/vnd.oci.image.manifest.v1+json' });
      return void res.end(JSON.stringify({ schemaVersion: 2, config, layers: [] }));
    }
    if (!url.includes('/manifests/')) {
      res.writeHead(404);
      return void res.end();
    }
    res.writeHead(200, { 'content-type': 'application/vnd.oci.image.manifest.v1+json' });
    if (mode === 'huge-manifest') return void pour(res, Buffer.alloc(MB, 0x20), 60 * MB); // no Content-Length
    if (mode === 'endless') return void pour(res, Buffer.alloc(64 * 1024, 0x20));
    return void res.write('{"schemaVersion":'); // stall: a start, then nothing
  }
  res.writeHead(404);
  res.end();
}

/** Run `release mirror` from the fake registry under /usr/bin/time: exit code, stderr, peak RSS. */
function mirrorFromFake(env: Record<string, string> = {}) {
  const args = ['mirror', '--version', 'v1.0.0', '--from', `127.0.0.1:${port}`];
  args.push('--to', `oci-layout:${join(project, 'target')}`, '--json');
  return new Promise<{ code: number; stdout: string; stderr: string; rssKb: number; ms: number }>(
    (resolve) => {
      const started = Date.now();
      execFile(
        '/usr/bin/time',
        ['-v', process.execPath, '--', RELEASE_BIN, ...args],
        {
          cwd: project,
          env: { PATH: process.env['PATH'] ?? '', HOME: project, CI: 'true', ...env },
          timeout: 60_000,
          maxBuffer: 8 * MB,
        },
        (error, stdout, stderr) => {
          const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
          const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          resolve({ code, stdout, stderr, rssKb: Number(rss?.[1] ?? Number.NaN), ms: Date.now() - started });
        },
      );
    },
  );
}

const errorOf = (run: { stdout: string }) =>
  (JSON.parse(run.stdout) as { error: { code: string; message: string } }).error;

beforeAll(async () => {
  project = mkdtempSync(join(tmpdir(), 'hostile-registry-'));
  writeFileSync(
    join(project, 'release.config.json'),
    JSON.stringify({ registry: 'oci-layout:.release/oci', signing: { publicKey: 'release-signing.pub' } }),
  );
  await writeKeyPair(project, { RELEASE_SIGNING_PASSPHRASE: 'hostile-registry' });
  server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('release mirror from a hostile registry: exit 3, memory flat', { timeout: 90_000 }, () => {
  it('a 60 MB manifest is cut at 4 MiB', async () => {
    mode = 'huge-manifest';
    const run = await mirrorFromFake();
    expect(run.code, run.stderr).toBe(3);
    expect(errorOf(run)).toMatchObject({ code: 'REGISTRY_RESPONSE_TOO_LARGE' });
    expect(errorOf(run).message).toContain('4194304-byte limit');
    expect(run.rssKb).toBeLessThan(RSS_LIMIT_KB);
    expect(existsSync(join(project, 'target'))).toBe(false);
  });

  it('a body that never ends is cut at the limit, not at the deadline', async () => {
    mode = 'endless';
    const run = await mirrorFromFake();
    expect(run.code, run.stderr).toBe(3);
    expect(errorOf(run).code).toBe('REGISTRY_RESPONSE_TOO_LARGE');
    expect(run.rssKb).toBeLessThan(RSS_LIMIT_KB);
    expect(run.ms).toBeLessThan(20_000); // the 30 s deadline never came into it
  });

  it('a body that stalls is cut at the deadline, which is named', async () => {
    mode = 'stall';
    const run = await mirrorFromFake({ RELEASE_REGISTRY_TIMEOUT: '2' });
    expect(run.code, run.stderr).toBe(3);
    expect(errorOf(run)).toMatchObject({ code: 'REGISTRY_TIMEOUT' });
    expect(errorOf(run).message).toContain('within 2000 ms');
    expect(run.rssKb).toBeLessThan(RSS_LIMIT_KB);
  });

  it("an image config that stalls, or never ends, is cut (the deadline, or the manifest's limit)", async () => {
    mode = 'config-stall';
    const stalled = await mirrorFromFake({ RELEASE_REGISTRY_TIMEOUT: '2' });
    expect(stalled.code, stalled.stderr).toBe(3);
    expect(errorOf(stalled)).toMatchObject({ code: 'REGISTRY_TIMEOUT' });
    expect(errorOf(stalled).message).toContain(`GET blob service-api@sha256:${'c'.repeat(64)}`);
    mode = 'config-endless';
    const endless = await mirrorFromFake();
    expect(endless.code, endless.stderr).toBe(3);
    expect(errorOf(endless).code).toBe('REGISTRY_RESPONSE_TOO_LARGE');
    expect(endless.rssKb).toBeLessThan(RSS_LIMIT_KB);
  });

  it("a token service's endless body is cut at 64 KiB", async () => {
    mode = 'endless-token';
    tokenRequests.length = 0;
    const run = await mirrorFromFake();
    expect(run.code, run.stderr).toBe(3);
    expect(errorOf(run).code).toBe('REGISTRY_AUTH_FAILED');
    expect(errorOf(run).message).toContain('65536-byte limit');
    expect(tokenRequests.length).toBeGreaterThan(0);
    expect(run.rssKb).toBeLessThan(RSS_LIMIT_KB);
  });

  it('a docker config whose entry for the registry is null: exit 2, the file named', async () => {
    mode = 'endless-token';
    const docker = join(project, 'docker-null');
    mkdirSync(docker, { recursive: true });
    writeFileSync(join(docker, 'config.json'), JSON.stringify({ auths: { [`127.0.0.1:${port}`]: null } }));
    const run = await mirrorFromFake({ DOCKER_CONFIG: docker });
    expect(run.code, run.stderr).toBe(2);
    expect(errorOf(run).message).toContain(
      `the docker config ${join(docker, 'config.json')} is not a docker config`,
    );
  });

  it('a realm on another host over http never receives the credentials', async () => {
    mode = 'foreign-realm';
    tokenRequests.length = 0;
    const docker = join(project, 'docker');
    rmSync(docker, { recursive: true, force: true });
    const auth = Buffer.from('mirror-user:s3cret-password').toString('base64');
    mkdirSync(docker);
    writeFileSync(
      join(docker, 'config.json'),
      JSON.stringify({ auths: { [`127.0.0.1:${port}`]: { auth } } }),
    );
    const run = await mirrorFromFake({ DOCKER_CONFIG: docker });
    expect(run.code, run.stderr).toBe(3);
    const error = errorOf(run);
    expect(error.code).toBe('REGISTRY_REALM_REFUSED');
    expect(error.message).toContain(`http://localhost:${port}/token`);
    expect(tokenRequests).toEqual([]);
    expect(run.stdout + run.stderr).not.toContain('s3cret-password');
    expect(run.rssKb).toBeLessThan(RSS_LIMIT_KB);
  });
});
