import type { Server } from 'node:http';
import { get, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiServer } from '../../src/service/api/server.ts';
import { createHardenedServer } from '../../src/service/http/create-server.ts';
import { closeGracefully } from '../../src/service/http/graceful-close.ts';
import { listen } from '../../src/service/http/lifecycle.ts';
import { jsonBody, rawExchange, request, STACK_LIKE } from './support.ts';

// The shared server limits, in-process with short timeouts so slow clients are cut within a test.

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(server: Server): Promise<string> {
  servers.push(server);
  return listen(server, { host: '127.0.0.1', port: 0 });
}

const SHORT = { headersTimeoutMs: 500, requestTimeoutMs: 1_000, checkIntervalMs: 100 };

describe('a handler that fails', () => {
  it('answers 500 JSON without a stack trace, for a throw and for a rejection; the details go to stderr', async () => {
    const logged: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      logged.push(String(chunk));
      return true;
    });
    try {
      const base = await serve(
        createHardenedServer(
          (req) => {
            if (req.url === '/sync') throw new Error('boom at /secret/path.ts:12');
            return Promise.reject(new TypeError('async boom'));
          },
          { name: 'test' },
        ),
      );
      for (const path of ['/sync', '/async']) {
        const reply = await request(base, path);
        expect(reply.status).toBe(500);
        expect(jsonBody(reply)).toEqual({ error: 'internal error' });
        expect(reply.body.toString()).not.toMatch(STACK_LIKE);
      }
    } finally {
      spy.mockRestore();
    }
    expect(logged.join('')).toMatch(
      /test: internal error on GET \/sync: Error: boom at \/secret\/path\.ts:12\n\s+at /,
    );
    expect(logged.join('')).toContain('test: internal error on GET /async: TypeError: async boom');
  });
});

describe('malformed requests', () => {
  it.each([
    ['garbage request line', 'GARBAGE\r\n\r\n'],
    ['bad header name', 'GET /api/version HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n'],
    ['bad Content-Length', 'GET /api/version HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'],
    ['bad HTTP version', 'GET /api/version HTTP/9.x\r\nHost: x\r\n\r\n'],
  ])('%s gets 400 JSON and a closed connection', async (_name, raw) => {
    const base = await serve(createApiServer({ version: 'v1.0.0' }));
    const answer = await rawExchange(base, raw);
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/);
    expect(answer).toMatch(/\r\n\r\n\{"error":"malformed request"\}$/);
    expect(answer).not.toMatch(STACK_LIKE);
  });

  it('HTTP/1.1 without Host gets 400 JSON and a closed connection', async () => {
    const base = await serve(createApiServer({ version: 'v1.0.0' }));
    const answer = await rawExchange(base, 'GET /api/version HTTP/1.1\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/);
    expect(answer).toMatch(/\{"error":"malformed request: HTTP\/1\.1 requires a Host header"\}$/);
  });

  it('oversized headers get 431', async () => {
    const base = await serve(createApiServer({ version: 'v1.0.0' }));
    const answer = await rawExchange(
      base,
      `GET /api/version HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
  });
});

describe('slow clients', () => {
  it('a client that never finishes its headers gets 408 and is disconnected', async () => {
    const base = await serve(createApiServer({ version: 'v1.0.0', limits: SHORT }));
    const started = Date.now();
    const answer = await rawExchange(base, 'GET /api/version HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a client that never sends a byte is disconnected too', async () => {
    const base = await serve(createApiServer({ version: 'v1.0.0', limits: SHORT }));
    const url = new URL(base);
    const closed = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(url.port), url.hostname);
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(false);
      }, 5_000);
      socket.resume();
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    expect(closed).toBe(true);
  });

  it('a body that trickles past the request timeout is cut', async () => {
    const base = await serve(createApiServer({ version: 'v1.0.0', limits: SHORT }));
    const url = new URL(base);
    const result = await new Promise<{ answer: string; cutByServer: boolean }>((resolve) => {
      const socket = connect(Number(url.port), url.hostname);
      let answer = '';
      let cutByServer = true;
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        answer += chunk;
      });
      socket.write('POST /api/version HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n');
      const drip = setInterval(() => socket.writable && socket.write('a'), 100);
      const timer = setTimeout(() => {
        cutByServer = false;
        socket.destroy();
      }, 8_000);
      socket.on('error', () => {});
      socket.on('close', () => {
        clearInterval(drip);
        clearTimeout(timer);
        resolve({ answer, cutByServer });
      });
    });
    // Node answers the complete headers at once (405: our route reads no body), then the request
    // timeout closes the connection the client keeps busy by dripping the body.
    expect(result.cutByServer).toBe(true);
    expect(result.answer).toMatch(/^HTTP\/1\.1 405 /);
  });
});

describe('closeGracefully', () => {
  const archive = { file: 'memory', bytes: Buffer.alloc(48 * 1024 * 1024, 7), sha256: '0'.repeat(64) };

  it('cuts a reader that stops reading once the grace period is over', async () => {
    const server = createApiServer({ version: 'v1.0.0', archive });
    const base = await serve(server);
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      get(`${base}/api/cli/download/service-cli.tar.gz`, { agent: false }, (response) => {
        response.once('data', () => {
          response.pause();
          resolve(response);
        });
      }).on('error', reject);
    });
    const started = Date.now();
    expect(await closeGracefully(server, 300)).toEqual({ forced: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    // Reading again, the client finds the connection cut before the end of the archive.
    const outcome = await new Promise<string>((resolve) => {
      res.on('end', () => resolve('complete'));
      res.on('error', () => resolve('cut'));
      res.on('aborted', () => resolve('cut'));
      res.resume();
    });
    expect(outcome).toBe('cut');
  });

  it('resolves at once, not forced, when every connection is idle', async () => {
    const server = createApiServer({ version: 'v1.0.0' });
    const base = await serve(server);
    expect((await request(base, '/api/version')).status).toBe(200);
    expect(await closeGracefully(server, 5_000)).toEqual({ forced: false });
  });
});
