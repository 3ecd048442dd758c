import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ExternalError } from '../errors.ts';
import { freePort, retryOnPortClash } from '../processes/free-port.ts';
import { stopChild } from '../processes/stop-child.ts';

export interface LocalNpmRegistryOptions {
  /** Directory for its config, htpasswd and storage; removed by `stop()`. */
  dir: string;
  /** The one user allowed to publish (htpasswd); anyone may read. */
  user: { name: string; password: string };
}

export interface LocalNpmRegistry {
  /** `http://127.0.0.1:<port>/` */
  url: string;
  dir: string;
  /** A token for `user`, from the registry's own login (`PUT /-/user/org.couchdb.user:<name>`). */
  token: string;
  /** The registry's output so far (for a failure's reason). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * A real Verdaccio 5 on a free loopback port: storage in `dir`, htpasswd auth (publish needs the
 * user, reading does not), no uplinks (it never reaches the internet), web UI off. Resolves once it
 * answers `/-/ping` and the user's token is issued; fails fast with the reason otherwise.
 *
 * Verdaccio is a devDependency: `release rehearse --publish` looks it up here and says how to
 * install it when it is missing.
 */
export async function startLocalNpmRegistry(options: LocalNpmRegistryOptions): Promise<LocalNpmRegistry> {
  const bin = verdaccioBin();
  // An attempt that fails stops only its own process; the dir goes when the last one has failed.
  return retryOnPortClash(() => startOnFreePort(bin, options)).catch(async (error) => {
    await rm(options.dir, { recursive: true, force: true });
    throw error;
  });
}

async function startOnFreePort(bin: string, options: LocalNpmRegistryOptions): Promise<LocalNpmRegistry> {
  const { dir } = options;
  await mkdir(join(dir, 'storage'), { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  // `{SHA}` entries: verdaccio-htpasswd reads them, and node:crypto is all they need.
  const sha = createHash('sha1').update(options.user.password).digest('base64');
  await writeFile(join(dir, 'htpasswd'), `${options.user.name}:{SHA}${sha}\n`, { mode: 0o600 });
  const config = [
    `storage: ${join(dir, 'storage')}`,
    'auth:',
    '  htpasswd:',
    `    file: ${join(dir, 'htpasswd')}`,
    '    max_users: -1', // no self-registration
    'uplinks: {}',
    'packages:',
    "  '**':",
    '    access: $all',
    '    publish: $authenticated',
    '    unpublish: $authenticated',
    'web:',
    '  enable: false',
    'log: { type: stdout, format: pretty, level: warn }',
    'max_body_size: 64mb',
  ];
  await writeFile(join(dir, 'config.yaml'), `${config.join('\n')}\n`);

  const child = spawn(
    process.execPath,
    [bin, '--config', join(dir, 'config.yaml'), '--listen', `127.0.0.1:${port}`],
    {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env['PATH'] ?? '', HOME: dir, NODE_ENV: 'production' },
    },
  );
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const stop = async () => {
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilUp(`${url}-/ping`, child, () => output);
    const token = await login(url, options.user);
    return { url, dir, token, log: () => output, stop };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/** Where Verdaccio's bin is, or an error saying how to install it. */
export function verdaccioBin(): string {
  try {
    const require = createRequire(import.meta.url);
    return join(dirname(require.resolve('verdaccio/package.json')), 'bin', 'verdaccio');
  } catch (error) {
    throw new ExternalError(
      'VERDACCIO_MISSING',
      'Verdaccio is not installed, so no local npm registry can start',
      {
        hint: 'npm install --no-save verdaccio@5 (in the toolkit, or beside it); it is a devDependency of service-release',
        cause: error,
      },
    );
  }
}

async function login(url: string, user: { name: string; password: string }): Promise<string> {
  const res = await fetch(new URL(`-/user/org.couchdb.user:${encodeURIComponent(user.name)}`, url), {
    method: 'PUT',
    // Signed in with basic auth, the user-creation endpoint logs in and issues a token (creating
    // users is off: max_users -1).
    headers: {
      'content-type': 'application/json',
      authorization: `Basic ${Buffer.from(`${user.name}:${user.password}`).toString('base64')}`,
    },
    body: JSON.stringify({ name: user.name, password: user.password }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json().catch(() => ({}))) as { token?: unknown; error?: unknown };
  if (res.status !== 201 || typeof body.token !== 'string')
    throw new ExternalError(
      'VERDACCIO_LOGIN_FAILED',
      `Verdaccio refused the login (HTTP ${res.status}: ${String(body.error ?? '')})`,
    );
  return body.token;
}

async function waitUntilUp(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new ExternalError(
        'VERDACCIO_FAILED',
        `Verdaccio exited (${child.exitCode ?? child.signalCode}): ${output()}`,
      );
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.body?.cancel();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new ExternalError('VERDACCIO_FAILED', `Verdaccio did not answer within 30 s: ${output()}`);
}
