import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A loopback port nobody listens on right now, for programs that cannot listen on port 0.
 *
 * The port comes from *below* the kernel's ephemeral range. A port handed out by `listen(0)` is in
 * that range, and so is the source port of every outgoing connection: between our check and the
 * child's own `listen`, any connection on the machine (a test's fetch, npm, dockerd) may take it,
 * and the child dies with EADDRINUSE. Below the range only another explicit pick can clash, which
 * `retryOnPortClash` absorbs.
 */
export async function freePort(): Promise<number> {
  const range = explicitPortRange();
  for (let attempt = 0; range && attempt < 50; attempt++) {
    const [low, high] = range;
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await canListen(port)) return port;
  }
  return listenZeroPort(); // no room below the range, or all taken: the kernel's choice
}

/** True when `error` says an address was taken (from us, or in a child's output). */
export function isPortClash(error: unknown): boolean {
  const text =
    error instanceof Error ? `${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}` : '';
  return /EADDRINUSE|address already in use/i.test(text);
}

/**
 * Run `start` (which picks its own port with `freePort`) again on a port clash, up to `attempts`
 * times: the pick-then-listen gap cannot be closed for a child process, only retried.
 */
export async function retryOnPortClash<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= attempts || !isPortClash(error)) throw error;
    }
  }
}

/**
 * Up to 20,000 ports under the ephemeral range, which the kernel never assigns on its own; none
 * when the range starts too low to leave room above 10,000 (the ports common services use).
 */
export function explicitPortRange(
  rangeFile = '/proc/sys/net/ipv4/ip_local_port_range',
): [number, number] | undefined {
  let ephemeralLow = 32768; // Linux's default
  try {
    const [low] = readFileSync(rangeFile, 'utf8').trim().split(/\s+/).map(Number);
    if (low !== undefined && Number.isInteger(low)) ephemeralLow = low;
  } catch {
    // not Linux, or no procfs: keep the default
  }
  const high = Math.min(ephemeralLow - 1, 65535);
  const low = Math.max(10_000, high - 20_000);
  return low < high ? [low, high] : undefined;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

function listenZeroPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
