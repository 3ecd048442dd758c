import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '../../src/service/api/server.ts';
import { listen } from '../../src/service/http/lifecycle.ts';
import { parseApiUrl } from '../../src/service/web/server/api-proxy.ts';
import { createWebServer } from '../../src/service/web/server/web-server.ts';
import { startProcess } from '../helpers/start-process.ts';

// The web image's server, in process for the HTTP details, and as the real bin for start-up.

const BIN = fileURLToPath(new URL('../../bin/service-web.js', import.meta.url));
const SECRET = 'secret outside the web root';

const work = mkdtempSync(join(tmpdir(), 'sr-web-server-'));
const root = join(work, 'root');
const servers: Server[] = [];
let web: string; // no API_URL
let proxied: string; // API_URL -> the real reference API
let stalled: string; // API_URL -> a server that accepts and never answers
let unreachable: string; // API_URL -> a closed port

async function serve(server: Server): Promise<string> {
  servers.push(server);
  return listen(server, { host: '127.0.0.1', port: 0 });
}

/** A raw request: the path goes on the wire exactly as written (no client-side normalising). */
function get(
  base: string,
  path: string,
  method = 'GET',
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method, timeout: 15_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer for ${path}`)));
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  mkdirSync(join(root, 'assets'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(root, 'version.json'), '{"version":"v3.1.4"}\n');
  writeFileSync(join(root, 'assets', 'index-abc123.js'), 'console.log(1)');
  writeFileSync(join(root, 'assets', 'index-abc123.css'), 'body{}');
  writeFileSync(join(root, 'assets', 'logo.svg'), '<svg/>');
  writeFileSync(join(root, 'assets', 'data.bin'), 'x');
  writeFileSync(join(root, '.env'), 'TOKEN=hidden');
  writeFileSync(join(work, 'secret.txt'), SECRET);
  symlinkSync(join(work, 'secret.txt'), join(root, 'assets', 'link.txt'));

  const api = await serve(createApiServer({ version: 'v3.1.4' }));
  const hanging = createServer(() => {
    // Accept the request and never answer: a stuck API.
  });
  const stuck = await serve(hanging);
  const closed = await serve(createServer());
  await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));

  web = await serve(createWebServer({ root }));
  proxied = await serve(createWebServer({ root, apiUrl: parseApiUrl(api) }));
  stalled = await serve(
    createWebServer({ root, apiUrl: parseApiUrl(stuck), proxyTimeoutMs: 500, log: () => {} }),
  );
  unreachable = await serve(createWebServer({ root, apiUrl: parseApiUrl(closed), log: () => {} }));
});

afterAll(async () => {
  for (const server of servers) server.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  rmSync(work, { recursive: true, force: true });
});

describe('service-web static files', () => {
  it.each([
    ['/', 'text/html; charset=utf-8', 'no-store'],
    ['/index.html', 'text/html; charset=utf-8', 'no-store'],
    ['/version.json', 'application/json', 'no-store'],
    ['/assets/index-abc123.js', 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable'],
    ['/assets/index-abc123.css', 'text/css; charset=utf-8', 'public, max-age=31536000, immutable'],
    ['/assets/logo.svg', 'image/svg+xml', 'public, max-age=31536000, immutable'],
    ['/assets/data.bin', 'application/octet-stream', 'public, max-age=31536000, immutable'],
    ['/version.json?cache=bust', 'application/json', 'no-store'],
  ])('%s: %s, Cache-Control %s', async (path, type, cache) => {
    const res = await get(web, path);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers['cache-control']).toBe(cache);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
  });

  it('answers HEAD with the headers and no body, and other methods with 405', async () => {
    const head = await get(web, '/version.json', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe('21');
    expect(head.body).toBe('');
    const post = await get(web, '/index.html', 'POST');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it.each([
    '/../secret.txt',
    '/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E/%2e%2e/secret.txt',
    '/..%2fsecret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/assets/../../secret.txt',
    '/..%5csecret.txt',
    '/%2e%2e%5csecret.txt',
    '/assets/link.txt',
    '/.env',
    '/%2eenv',
    '/assets/',
    '/assets',
    '/index.html%00.txt',
    '/nope.html',
  ])('does not serve %s', async (path) => {
    const res = await get(web, path);
    expect([400, 404]).toContain(res.status);
    expect(res.body).not.toContain(SECRET);
    expect(res.body).not.toContain('TOKEN');
    expect(JSON.parse(res.body)).toHaveProperty('error');
  });

  it('answers 400 for a path that cannot be decoded', async () => {
    const res = await get(web, '/%E0%A4%A');
    expect(res.status).toBe(400);
  });

  it('answers /api/* with 404 JSON when no API_URL is set', async () => {
    const res = await get(web, '/api/version');
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual({ error: 'not found' });
  });
});

describe('service-web /api proxy', () => {
  it('forwards /api/version to the API with its headers and body', async () => {
    const res = await get(proxied, '/api/version');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({
      version: 'v3.1.4',
      min_cli_version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
    });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['content-type']).toBe('application/json');
    const head = await get(proxied, '/api/version?x=1', 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    // The API's own answers pass through unchanged.
    const post = await get(proxied, '/api/version', 'POST');
    expect(post.status).toBe(405);
    expect((await get(proxied, '/api/nothing-here')).status).toBe(404);
  });

  it('resolves dot segments first: only paths under /api/ are forwarded', async () => {
    const escaped = await get(proxied, '/api/../version.json');
    expect(escaped.status).toBe(200);
    expect(JSON.parse(escaped.body)).toEqual({ version: 'v3.1.4' });
    expect(escaped.headers['content-length']).toBe('21'); // the file, not the API
    const into = await get(proxied, '/assets/%2e%2e/api/version');
    expect(JSON.parse(into.body)).toHaveProperty('min_cli_version');
  });

  it('answers 504 when the API does not answer in time', async () => {
    const started = Date.now();
    const res = await get(stalled, '/api/version');
    expect(res.status).toBe(504);
    expect(JSON.parse(res.body)).toEqual({ error: 'the API did not answer in time' });
    // 500 ms deadline; generous margin for a loaded machine, far below the client's 15 s.
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('answers 502 when the API is unreachable', async () => {
    const res = await get(unreachable, '/api/version');
    expect(res.status).toBe(502);
    expect(JSON.parse(res.body)).toEqual({ error: 'the API is unavailable' });
  });

  it.each(['ftp://api.example:21', 'http://user:pass@api.example', 'http://api.example/?x=1', 'not a url'])(
    'refuses API_URL %s',
    (raw) => {
      expect(() => parseApiUrl(raw)).toThrow(
        expect.objectContaining({ code: 'API_URL_INVALID', exitCode: 2 }),
      );
    },
  );
});

describe('service-web process', () => {
  it('prints one line with the served version, root and URL, and stops on SIGTERM', async () => {
    const proc = await startProcess(BIN, {
      env: { HOST: '127.0.0.1', PORT: '0', WEB_ROOT: root },
      readyPattern: /on (http:\/\/127\.0\.0\.1:\d+)\n/,
    });
    try {
      expect(proc.stdout()).toBe(`service-web v3.1.4 serving ${root} on ${proc.url}\n`);
      const res = await get(proc.url, '/version.json');
      expect(JSON.parse(res.body)).toEqual({ version: 'v3.1.4' });
    } finally {
      expect(await proc.stop()).toEqual({ code: 0, signal: null });
    }
  });

  it.each([
    [{ WEB_ROOT: join(work, 'missing') }, /WEB_ROOT .*missing has no index\.html/],
    [{ WEB_ROOT: root, PORT: 'eighty' }, /PORT="eighty" is not a port number/],
    [{ WEB_ROOT: root, API_URL: 'http://user:secret@api:8080' }, /API_URL is not an http\(s\) URL/],
  ])('exits 2 with a hint for bad settings %j', async (env, message) => {
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [BIN],
        {
          env: { PATH: process.env['PATH'] ?? '', HOME: '/tmp', HOST: '127.0.0.1', PORT: '0', ...env },
          timeout: 30_000,
        },
        (error, stdout, stderr) =>
          resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr }),
      );
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toMatch(/^service-web: hint: /m);
    expect(result.stderr).not.toContain('secret');
  });
});
