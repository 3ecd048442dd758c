import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkVersionQuality } from '../../src/verify/checks.ts';
import { probeApi } from '../../src/verify/probes/api.ts';
import { probeWeb } from '../../src/verify/probes/web.ts';
import { probeWorkerHealth } from '../../src/verify/probes/worker-health.ts';

// Servers an operator does not control may be slow, huge or hostile. Each route below is a real
// loopback HTTP server answering badly; the probes must stay bounded and report a reason.

const routes: Record<string, (res: ServerResponse) => void> = {
  '/slow/api/version': () => {
    // never answers
  },
  '/huge/api/version': (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"version":"v1.0.0","pad":"${'x'.repeat(200_000)}"}`);
  },
  '/chunked-huge/api/version': (res) => {
    // No Content-Length: the cap must hold while streaming.
    res.writeHead(200, { 'content-type': 'application/json' });
    let sent = 0;
    const timer = setInterval(() => {
      if (res.destroyed || sent > 5_000_000) {
        clearInterval(timer);
        res.end();
        return;
      }
      res.write('x'.repeat(16_384));
      sent += 16_384;
    }, 1);
  },
  '/escape/api/version': (res) =>
    json(res, { version: 'v1.0.0\u001b[2J\u001b]0;pwned\u0007', min_cli_version: '1.0.0' }),
  '/html/api/version': (res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>login</html>');
  },
  '/array/api/version': (res) => json(res, ['v1.0.0']),
  '/number/api/version': (res) => json(res, { version: 1, min_cli_version: '1.0.0' }),
  '/500/api/version': (res) => json(res, { error: 'boom' }, 500),
  '/moved/api/version': (res) => {
    res.writeHead(302, { location: '/ok/api/version' });
    res.end();
  },
  '/ok/api/version': (res) => json(res, { version: 'v1.0.0', min_cli_version: '1.0.0' }),
  '/meta/version.json': (res) => json(res, {}, 404),
  '/meta/': (res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><head><meta content="v2.0.0" name="service-client-version"></head>');
  },
  '/nometa/version.json': (res) => json(res, {}, 404),
  '/nometa/': (res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><head><title>x</title></head>');
  },
  '/sick/healthz': (res) => json(res, { version: 'v1.0.0', status: 'degraded' }, 503),
};

function json(res: ServerResponse, body: unknown, status = 200) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const route = routes[req.url ?? ''];
    if (route) route(res);
    else json(res, { error: 'not found' }, 404);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const options = { timeoutMs: 1_000 };

describe('probes against hostile servers', () => {
  it('gives up on a server that never answers, within the deadline plus margin', async () => {
    const started = performance.now();
    const r = await probeApi(`${base}/slow`, options);
    expect(r.version).toBeUndefined();
    expect(r.error).toBe('no answer within 1000 ms');
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('refuses a body above the cap, declared or streamed', async () => {
    expect((await probeApi(`${base}/huge`, options)).error).toMatch(/larger than the 65536-byte limit/);
    const streamed = await probeApi(`${base}/chunked-huge`, { timeoutMs: 5_000 });
    expect(streamed.error).toMatch(/larger than the 65536-byte limit/);
  });

  it('makes escape sequences visible, and the checks call the value invalid', async () => {
    const r = await probeApi(`${base}/escape`, options);
    expect(r.version).toBe('v1.0.0\\u001b[2J\\u001b]0;pwned\\u0007');
    expect(r.version).not.toMatch(/[\u0000-\u001f]/);
    const findings = checkVersionQuality(r, {
      apiUrl: base,
      images: { api: 'a', worker: 'w', web: 'b' },
      tag: undefined,
    });
    expect(findings.map((f) => f.code)).toEqual(['VERSION_INVALID']);
  });

  it('says why a document cannot be read', async () => {
    expect((await probeApi(`${base}/html`, options)).error).toBe('the version endpoint did not answer JSON');
    expect((await probeApi(`${base}/array`, options)).error).toBe(
      'the version document is not a JSON object',
    );
    expect((await probeApi(`${base}/number`, options)).error).toBe(
      'the version document has no "version" string',
    );
    expect((await probeApi(`${base}/500`, options)).error).toBe('HTTP 500 from the version endpoint');
    expect((await probeApi('http://127.0.0.1:9', options)).error).toBe('connection refused');
  });

  it('follows a redirect to the version document', async () => {
    expect(await probeApi(`${base}/moved`, options)).toMatchObject({
      version: 'v1.0.0',
      minCliVersion: '1.0.0',
    });
  });

  it('reads the web meta tag in either attribute order, and says when there is none', async () => {
    expect(await probeWeb(`${base}/meta`, options)).toMatchObject({
      version: 'v2.0.0',
      source: `${base}/meta/ (meta tag)`,
    });
    const none = await probeWeb(`${base}/nometa`, options);
    expect(none.error).toBe('version.json: HTTP 404; the page has no service-client-version meta tag');
  });

  it('reads the version of an unhealthy worker and says it is unhealthy', async () => {
    expect(await probeWorkerHealth(`${base}/sick/healthz`, options)).toMatchObject({
      version: 'v1.0.0',
      detail: 'health: HTTP 503, status degraded',
    });
  });
});
