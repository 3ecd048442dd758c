import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';

export interface Dockerd {
  /** Path of the engine's unix socket. */
  socket: string;
  /** `unix://<socket>`: what DOCKER_HOST should be for a subprocess using this engine. */
  host: string;
  /** A dockerode client on the socket. */
  docker: Docker;
  /** The temp directory holding data, exec root, socket and log. */
  dir: string;
  /** The engine's log so far (for failure messages). */
  log(): string;
  /** Stop the engine (TERM, then KILL after a grace period) and remove its data. Idempotent. */
  stop(): Promise<void>;
}

export interface StartDockerdOptions {
  timeoutMs?: number;
  /**
   * The storage driver. By default the engine picks its own, as a user's engine does: overlay2
   * wherever the kernel mounts overlays, else vfs. vfs copies an image's whole file system for
   * every layer and every container (a node base is 100 MB), which cost the suite minutes of disk
   * and CPU; name it only where a test needs its own behaviour (its differ compares metadata).
   */
  storageDriver?: 'vfs' | 'overlay2';
}

/**
 * Start a real, private `dockerd` (DESIGN.md "Real components"): its own data root, exec root,
 * pid file and socket in a temp directory, no iptables, no bridge, so it runs beside any other
 * engine on the machine. Containers must use `--network host` (or none).
 * Resolves once the engine answers a ping; rejects with the engine's log when it does not.
 */
export async function startDockerd(options: StartDockerdOptions = {}): Promise<Dockerd> {
  // Short path: a unix socket path must stay under ~108 bytes.
  const dir = mkdtempSync('/tmp/sr-dockerd-');
  const socket = join(dir, 'docker.sock');
  const logPath = join(dir, 'dockerd.log');
  const logFd = openSync(logPath, 'a');
  const child: ChildProcess = spawn(
    'dockerd',
    [
      '--data-root',
      join(dir, 'data'),
      '--exec-root',
      join(dir, 'exec'),
      '--pidfile',
      join(dir, 'd.pid'),
      '--host',
      `unix://${socket}`,
      '--iptables=false',
      '--ip6tables=false',
      '--bridge=none',
      ...(options.storageDriver ? [`--storage-driver=${options.storageDriver}`] : []),
    ],
    { stdio: ['ignore', logFd, logFd] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let running = true;
  child.once('exit', () => (running = false));
  const log = () => {
    try {
      return readFileSync(logPath, 'utf8');
    } catch {
      return '';
    }
  };
  const docker = new Docker({ socketPath: socket });
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (running) {
      child.kill('SIGTERM');
      const grace = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(grace);
    }
    unmountUnder(dir);
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };

  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    if (!running) {
      const text = log();
      await stop();
      throw new Error(`dockerd exited before answering a ping:\n${text.slice(-4000)}`);
    }
    try {
      await docker.ping();
      return { socket, host: `unix://${socket}`, docker, dir, log, stop };
    } catch {
      if (Date.now() > deadline) {
        const text = log();
        await stop();
        throw new Error(
          `dockerd did not answer a ping within ${options.timeoutMs ?? 60_000} ms:\n${text.slice(-4000)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/** dockerd leaves mounts in its exec root (the `netns/default` bind): detach them before removal. */
export function unmountUnder(dir: string): void {
  let mounts: string[];
  try {
    mounts = readFileSync('/proc/self/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' ')[1] ?? '')
      .filter((path) => path.startsWith(`${dir}/`));
  } catch {
    return;
  }
  for (const path of mounts.sort((a, b) => b.length - a.length)) {
    try {
      execFileSync('umount', ['-l', path], { stdio: 'ignore' });
    } catch {
      // Best effort: removal below reports anything still busy.
    }
  }
}
