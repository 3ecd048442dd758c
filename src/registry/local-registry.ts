import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ExternalError } from '../errors.ts';
import { freePort, retryOnPortClash } from '../processes/free-port.ts';
import { stopChild } from '../processes/stop-child.ts';

export interface LocalRegistryOptions {
  /** Directory for its config and storage; removed by `stop()`. */
  dir: string;
  /** Extra top-level config lines (an `auth:` section, say). */
  extraConfig?: string[];
  /** Allow `DELETE` of manifests (storage.delete.enabled). */
  deleteEnabled?: boolean;
  /** The address to listen on (default 127.0.0.1): a bridge's, for engines in network namespaces. */
  address?: string;
}

export interface LocalRegistry {
  /** `127.0.0.1:<port>` (or the address asked for) */
  host: string;
  dir: string;
  stop(): Promise<void>;
}

/**
 * A real `docker-registry serve` (Debian's distribution 2.x) on a free loopback port with
 * filesystem storage under `dir`. Resolves once `/v2/` answers. Used by the Docker rehearsal and,
 * with auth added, by the tests.
 */
export async function startLocalRegistry(options: LocalRegistryOptions): Promise<LocalRegistry> {
  // An attempt that fails stops only its own process: the dir may hold the caller's files (an
  // htpasswd) that the next attempt needs. It goes when the last attempt has failed.
  return retryOnPortClash(() => startOnFreePort(options)).catch(async (error) => {
    await rm(options.dir, { recursive: true, force: true });
    throw error;
  });
}

async function startOnFreePort(options: LocalRegistryOptions): Promise<LocalRegistry> {
  const { dir } = options;
  await mkdir(dir, { recursive: true });
  const host = `${options.address ?? '127.0.0.1'}:${await freePort()}`;
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
    ...(options.extraConfig ?? []),
  ];
  const config = join(dir, 'config.yml');
  await writeFile(config, `${lines.join('\n')}\n`);

  const child = spawn('docker-registry', ['serve', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const stop = async () => {
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await spawned.catch((error: NodeJS.ErrnoException) => {
      throw new ExternalError(
        'REGISTRY_MISSING',
        error.code === 'ENOENT'
          ? 'docker-registry is not installed'
          : `cannot start docker-registry: ${error.message}`,
        { hint: 'apt-get install docker-registry', cause: error },
      );
    });
    await waitUntilUp(`http://${host}/v2/`, child, () => stderr);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { host, dir, stop };
}

async function waitUntilUp(url: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new ExternalError('REGISTRY_FAILED', `docker-registry exited ${child.exitCode}: ${stderr()}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.body?.cancel();
      if (res.status === 200 || res.status === 401) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new ExternalError('REGISTRY_FAILED', `docker-registry did not answer within 20 s: ${stderr()}`);
}
