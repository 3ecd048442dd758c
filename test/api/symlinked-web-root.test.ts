import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';

// Both static servers (service-api with SERVICE_WEB_ROOT, service-web with WEB_ROOT) serving a web
// root reached through a symlink, holding symlinks to a dotfile and to a dot-directory (issue
// 19): the dotfile rule applies to the file that would be read, not to the request path.
const API_BIN = fileURLToPath(new URL('../../bin/service-api.js', import.meta.url));
const WEB_BIN = fileURLToPath(new URL('../../bin/service-web.js', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'sr-symlinked-root-'));
const real = join(work, 'real-root');
const linked = join(work, 'web-root'); // the root as configured: a symlink to real-root
const servers: Record<string, StartedProcess> = {};

function fetchPath(base: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(`${base}${path}`, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

beforeAll(async () => {
  mkdirSync(join(real, 'assets'), { recursive: true });
  mkdirSync(join(real, '.git'));
  writeFileSync(join(real, 'index.html'), '<!doctype html><title>t</title>');
  writeFileSync(join(real, 'version.json'), '{"version":"v1.0.0"}\n');
  writeFileSync(join(real, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(real, '.secret'), 'the secret');
  writeFileSync(join(real, '.git', 'config'), 'the git config');
  symlinkSync('.secret', join(real, 'innocent.txt'));
  symlinkSync('../.git/config', join(real, 'assets', 'config.txt'));
  symlinkSync('app.js', join(real, 'assets', 'alias.js')); // a harmless link still works
  symlinkSync(real, linked);
  servers['service-api'] = await startProcess(API_BIN, {
    env: { HOST: '127.0.0.1', PORT: '0', SERVICE_WEB_ROOT: linked },
  });
  servers['service-web'] = await startProcess(WEB_BIN, {
    env: { HOST: '127.0.0.1', PORT: '0', WEB_ROOT: linked },
    readyPattern: /on (http:\/\/127\.0\.0\.1:\d+)\n/,
  });
}, 60_000);
afterAll(async () => {
  for (const server of Object.values(servers)) await server.stop();
  rmSync(work, { recursive: true, force: true });
});

describe.each(['service-api', 'service-web'])('%s with a symlinked web root', (name) => {
  it('serves the files under it, and a link to a plain file', async () => {
    const base = servers[name]!.url;
    expect((await fetchPath(base, '/')).body).toContain('<title>t</title>');
    expect((await fetchPath(base, '/assets/alias.js')).body).toBe('console.log(1)');
  });

  it.each(['/innocent.txt', '/assets/config.txt', '/.secret'])(
    '404 for %s (resolves to a dotfile)',
    async (path) => {
      const res = await fetchPath(servers[name]!.url, path);
      expect(res.status).toBe(404);
      expect(res.body).not.toContain('the secret');
      expect(res.body).not.toContain('the git config');
    },
  );
});
