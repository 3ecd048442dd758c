import { createServer, type Server } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createVersionHandler, MIN_CLI_VERSION, type ReleaseError } from '../../src/index.ts';
import { listen } from '../../src/service/http/lifecycle.ts';
import { jsonBody, request } from './support.ts';

// The endpoint as a library, on real servers on ephemeral loopback ports: node:http and Express.

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(server: Server): Promise<string> {
  servers.push(server);
  return listen(server, { host: '127.0.0.1', port: 0 });
}

describe('createVersionHandler as a node:http handler', () => {
  it('answers exactly the two fields, typed, with no-store and nosniff', async () => {
    const base = await serve(
      createServer(createVersionHandler({ version: 'v1.2.3', minCliVersion: '1.0.0' })),
    );
    const reply = await request(base, '/api/version');
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.headers['cache-control']).toBe('no-store');
    expect(reply.headers['x-content-type-options']).toBe('nosniff');
    expect(Number(reply.headers['content-length'])).toBe(reply.body.length);
    const document = jsonBody(reply) as Record<string, unknown>;
    expect(Object.keys(document).sort()).toEqual(['min_cli_version', 'version']);
    expect(typeof document['version']).toBe('string');
    expect(document['min_cli_version']).toMatch(/^\d+\.\d+\.\d+$/);
    expect(reply.body.toString()).toBe('{"version":"v1.2.3","min_cli_version":"1.0.0"}');
  });

  it.each(['v1.2.3', '1.2.3', 'v2.0.0-rc.1', 'v1.2.3-4-gabcdef0-dirty', 'unknown'])(
    'reports %s exactly as given (the v prefix is neither added nor removed)',
    async (version) => {
      const base = await serve(
        createServer(createVersionHandler({ version, minCliVersion: MIN_CLI_VERSION })),
      );
      expect(jsonBody(await request(base, '/api/version'))).toEqual({
        version,
        min_cli_version: MIN_CLI_VERSION,
      });
    },
  );

  it('computes the body once: changing the options afterwards changes nothing', async () => {
    const options = { version: 'v1.0.0', minCliVersion: '1.0.0' };
    const base = await serve(createServer(createVersionHandler(options)));
    options.version = 'v6.6.6';
    options.minCliVersion = '6.6.6';
    expect(jsonBody(await request(base, '/api/version'))).toEqual({
      version: 'v1.0.0',
      min_cli_version: '1.0.0',
    });
  });

  it('HEAD has the same headers and no body; a query string does not matter', async () => {
    const base = await serve(
      createServer(createVersionHandler({ version: 'v1.2.3', minCliVersion: '1.0.0' })),
    );
    const get = await request(base, '/api/version?probe=1');
    const head = await request(base, '/api/version', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    for (const name of ['content-type', 'content-length', 'cache-control', 'x-content-type-options']) {
      expect(head.headers[name]).toBe(get.headers[name]);
    }
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])(
    '%s is 405 with Allow: GET, HEAD',
    async (method) => {
      const base = await serve(
        createServer(createVersionHandler({ version: 'v1.2.3', minCliVersion: '1.0.0' })),
      );
      const reply = await request(base, '/api/version', { method });
      expect(reply.status).toBe(405);
      expect(reply.headers['allow']).toBe('GET, HEAD');
      expect(jsonBody(reply)).toEqual({ error: expect.any(String) });
    },
  );

  it('other paths are 404 JSON without next', async () => {
    const base = await serve(
      createServer(createVersionHandler({ version: 'v1.2.3', minCliVersion: '1.0.0' })),
    );
    for (const path of ['/', '/api/version/', '/api/versions', '/API/VERSION']) {
      const reply = await request(base, path);
      expect(reply.status, path).toBe(404);
      expect(jsonBody(reply)).toEqual({ error: 'not found' });
    }
  });

  it('needs no credentials and answers the same bytes whatever the client sends', async () => {
    const base = await serve(
      createServer(createVersionHandler({ version: 'v1.2.3', minCliVersion: '1.0.0' })),
    );
    const bare = await request(base, '/api/version');
    const withCredentials = await request(base, '/api/version', {
      headers: { Authorization: 'Bearer secret-token', Cookie: 'session=abc' },
    });
    expect(withCredentials.body.equals(bare.body)).toBe(true);
    expect(withCredentials.body.toString()).not.toContain('secret');
  });
});

describe('createVersionHandler as Express middleware', () => {
  it('serves /api/version and calls next() for every other path', async () => {
    const app = express();
    app.use(createVersionHandler({ version: 'v3.1.4', minCliVersion: '3.0.0' }));
    app.get('/other', (_req, res) => {
      res.json({ from: 'next route' });
    });
    const base = await serve(createServer(app));
    expect(jsonBody(await request(base, '/api/version'))).toEqual({
      version: 'v3.1.4',
      min_cli_version: '3.0.0',
    });
    expect(jsonBody(await request(base, '/other'))).toEqual({ from: 'next route' });
    expect((await request(base, '/missing')).status).toBe(404); // Express's own 404, reached via next()
    const post = await request(base, '/api/version', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers['allow']).toBe('GET, HEAD');
  });
});

describe('createVersionHandler input checks', () => {
  it.each(['v1.0.0', '1.0', '1.0.0-rc.1', '01.0.0', ' 1.0.0', ''])(
    'refuses min_cli_version %j',
    (minCliVersion) => {
      expect(() => createVersionHandler({ version: 'v1.0.0', minCliVersion })).toThrow(
        expect.objectContaining({ code: 'MIN_CLI_VERSION_INVALID' }) as unknown as ReleaseError,
      );
    },
  );

  it('refuses an empty version (unknown is the word for "not known")', () => {
    expect(() => createVersionHandler({ version: '', minCliVersion: '1.0.0' })).toThrow(/non-empty/);
  });
});
