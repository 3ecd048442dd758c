import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';

export interface StartRegistryOptions {
  /** Require this user (HTTP basic auth, bcrypt htpasswd file). */
  htpasswd?: { user: string; password: string };
  /** Require bearer tokens from this token service, signed by the key of `certFile` (PEM). */
  token?: { realm: string; service: string; issuer: string; certFile: string };
  /** Allow `DELETE` of manifests (storage.delete.enabled), e.g. to delete a signature. */
  deleteEnabled?: boolean;
}

export interface RunningRegistry {
  /** `127.0.0.1:<port>` */
  host: string;
  /** The temp directory holding config and storage. */
  dir: string;
  stop(): Promise<void>;
}

/**
 * A real `docker-registry serve` (distribution 2.x) on a free loopback port, with filesystem
 * storage in a temp dir. Resolves once `/v2/` answers; `stop()` kills it and removes the dir.
 */
export async function startRegistry(options: StartRegistryOptions = {}): Promise<RunningRegistry> {
  const dir = mkdtempSync(join(tmpdir(), 'sr-registry-'));
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const lines = [
    'version: 0.1',
    'log:',
    '  level: error',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${join(dir, 'data')}`,
    ...(options.deleteEnabled ? ['  delete:', '    enabled: true'] : []),
    'http:',
    `  addr: ${host}`,
  ];
  if (options.htpasswd) {
    const file = join(dir, 'htpasswd');
    writeFileSync(file, `${options.htpasswd.user}:${bcrypt.hashSync(options.htpasswd.password, 5)}\n`);
    lines.push('auth:', '  htpasswd:', '    realm: test-registry', `    path: ${file}`);
  } else if (options.token) {
    const t = options.token;
    lines.push(
      'auth:',
      '  token:',
      `    realm: ${t.realm}`,
      `    service: ${t.service}`,
      `    issuer: ${t.issuer}`,
      `    rootcertbundle: ${t.certFile}`,
    );
  }
  const config = join(dir, 'config.yml');
  writeFileSync(config, `${lines.join('\n')}\n`);

  const child = spawn('docker-registry', ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const stop = async () => {
    await kill(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilUp(`http://${host}/v2/`, child, () => stderr);
  } catch (error) {
    await stop();
    throw error;
  }
  return { host, dir, stop };
}

/** A loopback port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilUp(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited ${child.exitCode}: ${stderr()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.body?.cancel();
      if (res.status === 200 || res.status === 401) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`docker-registry did not answer within 20 s: ${stderr()}`);
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}
