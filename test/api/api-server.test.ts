import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_CLI_VERSION } from '../../src/service/api/min-cli-version.ts';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';
import { API_BIN, API_READY, jsonBody, rawExchange, request, STACK_LIKE } from './support.ts';

// The reference API as an operator runs it: bin/service-api.js as a subprocess on an ephemeral
// loopback port, with a real CLI archive and a real web root on disk.

let dir: string;
let archive: Buffer;
let api: StartedProcess;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sr-api-'));
  archive = gzipSync(randomBytes(64 * 1024));
  writeFileSync(join(dir, 'service-cli.tar.gz'), archive);
  const web = join(dir, 'web');
  mkdirSync(join(web, 'assets'), { recursive: true });
  writeFileSync(join(web, 'index.html'), '<!doctype html><title>service</title>');
  writeFileSync(join(web, 'version.json'), '{"version":"v1.2.3"}');
  writeFileSync(join(web, 'assets', 'app-1a2b3c.js'), 'console.log(1)');
  writeFileSync(join(web, 'assets', 'app.css'), 'body{}');
  writeFileSync(join(web, '.env'), 'SECRET=1');
  writeFileSync(join(dir, 'secret.txt'), 'outside the web root');
  symlinkSync(join(dir, 'secret.txt'), join(web, 'link-out.txt'));
  api = await startProcess(API_BIN, {
    cwd: dir,
    env: {
      PORT: '0',
      SERVICE_VERSION: 'v1.2.3',
      SERVICE_CLI_ARCHIVE: join(dir, 'service-cli.tar.gz'),
      SERVICE_WEB_ROOT: web,
    },
    readyPattern: API_READY,
  });
});

afterAll(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('start-up', () => {
  it('prints exactly one line on stdout: version, its source and the URL', () => {
    expect(api.stdout().trim().split('\n')).toEqual([
      `service-api v1.2.3 (source env) listening on ${api.url}`,
    ]);
    expect(api.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });
});

describe('GET /api/version', () => {
  it('has exactly the two fields, as strings, the v prefix as set', async () => {
    const reply = await request(api.url, '/api/version');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(jsonBody(reply)).toStrictEqual({ version: 'v1.2.3', min_cli_version: MIN_CLI_VERSION });
  });

  it('HEAD: same headers, no body', async () => {
    const get = await request(api.url, '/api/version');
    const head = await request(api.url, '/api/version', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(get.body.length));
    expect(head.headers['cache-control']).toBe('no-store');
  });

  it.each(['POST', 'PUT', 'DELETE'])('%s: 405 with Allow', async (method) => {
    const reply = await request(api.url, '/api/version', { method });
    expect(reply.status).toBe(405);
    expect(reply.headers['allow']).toBe('GET, HEAD');
  });
});

describe('errors', () => {
  it.each(['/api/nope', '/api', '/api/cli/download/other.tar.gz'])('%s: 404 JSON', async (path) => {
    const reply = await request(api.url, path);
    expect(reply.status).toBe(404);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(jsonBody(reply)).toEqual({ error: 'not found' });
  });

  it('malformed request: 400 JSON, no stack trace', async () => {
    const answer = await rawExchange(
      api.url,
      'GET /api/version HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('{"error":"malformed request"}');
    expect(answer).not.toMatch(STACK_LIKE);
  });
});

describe('GET /api/cli/download/service-cli.tar.gz', () => {
  const path = '/api/cli/download/service-cli.tar.gz';

  it('serves the archive with type, length, ETag and a SHA-256 header that matches the bytes', async () => {
    const reply = await request(api.url, path);
    expect(reply.status).toBe(200);
    expect(reply.body.equals(archive)).toBe(true);
    const sha256 = createHash('sha256').update(reply.body).digest('hex');
    expect(reply.headers['x-checksum-sha256']).toBe(sha256);
    expect(reply.headers['x-checksum-sha256']).toMatch(/^[0-9a-f]{64}$/);
    expect(reply.headers['etag']).toBe(`"sha256-${sha256}"`);
    expect(reply.headers['content-type']).toBe('application/gzip');
    expect(reply.headers['content-length']).toBe(String(archive.length));
  });

  it('HEAD: the same headers without the bytes; If-None-Match: 304', async () => {
    const head = await request(api.url, path, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(archive.length));
    const again = await request(api.url, path, { headers: { 'If-None-Match': head.headers['etag']! } });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
  });

  it('POST: 405', async () => {
    expect((await request(api.url, path, { method: 'POST' })).status).toBe(405);
  });

  it('a build without an archive answers 404 JSON', async () => {
    const bare = await startProcess(API_BIN, {
      cwd: dir,
      env: { PORT: '0', SERVICE_VERSION: 'v1.2.3', SERVICE_CLI_ARCHIVE: join(dir, 'missing.tar.gz') },
    });
    try {
      const reply = await request(bare.url, path);
      expect(reply.status).toBe(404);
      expect(jsonBody(reply)).toEqual({ error: expect.stringContaining('no CLI archive') });
      expect(bare.stderr()).toContain('no CLI archive');
    } finally {
      await bare.stop();
    }
  });
});

describe('SERVICE_WEB_ROOT', () => {
  it('serves index.html at / and version.json, never cached', async () => {
    const index = await request(api.url, '/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(index.headers['cache-control']).toBe('no-store');
    expect(index.body.toString()).toContain('<title>service</title>');
    const version = await request(api.url, '/version.json');
    expect(version.headers['content-type']).toBe('application/json');
    expect(version.headers['cache-control']).toBe('no-store');
    expect(jsonBody(version)).toEqual({ version: 'v1.2.3' });
  });

  it('serves assets with their content types', async () => {
    const js = await request(api.url, '/assets/app-1a2b3c.js');
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toContain('immutable');
    expect(js.body.toString()).toBe('console.log(1)');
    expect((await request(api.url, '/assets/app.css')).headers['content-type']).toBe(
      'text/css; charset=utf-8',
    );
    const head = await request(api.url, '/assets/app.css', { method: 'HEAD' });
    expect(head.headers['content-length']).toBe('6');
    expect(head.body.length).toBe(0);
  });

  it.each([
    '/../secret.txt',
    '/assets/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/%2e%2e%5csecret.txt',
    '/link-out.txt',
    '/.env',
    '/assets/',
    '/missing.html',
  ])('%s: 404, nothing outside the root', async (path) => {
    const reply = await request(api.url, path);
    expect(reply.status).toBe(404);
    expect(reply.body.toString()).not.toContain('outside the web root');
  });

  it('a path that cannot be decoded: 400', async () => {
    expect((await request(api.url, '/%E0%A4%A')).status).toBe(400);
  });

  it('POST to a static path: 405', async () => {
    expect((await request(api.url, '/index.html', { method: 'POST' })).status).toBe(405);
  });
});
