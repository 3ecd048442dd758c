import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from '../../errors.ts';
import { closeAllNow, closeGracefully } from './graceful-close.ts';

export interface ListenAddress {
  host: string;
  port: number;
}

/**
 * Read a listen address from the environment. A port outside 0..65535 or not a number is a
 * start-up error (exit 2), never a silent default; 0 asks the system for a free port.
 */
export function readListenAddress(
  env: Record<string, string | undefined>,
  names: { host: string; port: string },
  defaults: ListenAddress,
): ListenAddress {
  const host = env[names.host]?.trim() || defaults.host;
  const rawPort = env[names.port]?.trim();
  if (!rawPort) return { host, port: defaults.port };
  const port = /^\d{1,5}$/.test(rawPort) ? Number(rawPort) : Number.NaN;
  if (!(port >= 0 && port <= 65_535)) {
    throw new UsageError('PORT_INVALID', `${names.port}="${rawPort}" is not a port number`, {
      hint: `set ${names.port} to a number from 0 to 65535 (0 picks a free port)`,
    });
  }
  return { host, port };
}

/** Start listening; resolves with the base URL actually bound (the real port when 0 was asked). */
export function listen(server: Server, address: ListenAddress): Promise<string> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        new UsageError(
          'LISTEN_FAILED',
          `cannot listen on ${address.host}:${address.port}: ${error.code ?? error.message}`,
          {
            hint:
              error.code === 'EADDRINUSE'
                ? 'another process uses that port: pick another PORT, or 0 for a free one'
                : 'check HOST names an address of this machine',
            cause: error,
          },
        ),
      );
    };
    server.once('error', onError);
    server.listen(address.port, address.host, () => {
      server.off('error', onError);
      resolve(urlOf(server));
    });
  });
}

export function urlOf(server: Server): string {
  const { address, port } = server.address() as AddressInfo;
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}

/**
 * Run until SIGTERM or SIGINT, then close gracefully. A second signal cuts the remaining
 * connections at once. Resolves with the exit code: 0 after a clean close, 1 when connections had
 * to be cut.
 */
export function closeOnSignal(
  server: Server,
  options: { name: string; graceMs: number; log: (line: string) => void },
): Promise<number> {
  return new Promise((resolve) => {
    let closing = false;
    let cut = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (closing) {
        options.log(`${options.name}: ${signal} again: closing all connections now`);
        cut = true;
        closeAllNow(server);
        return;
      }
      closing = true;
      const closed = closeGracefully(server, options.graceMs);
      // Logged after the listener is closed, so whoever reads this line can rely on it.
      options.log(`${options.name}: ${signal}: stopped listening; finishing requests in flight`);
      closed.then(({ forced }) => {
        process.off('SIGTERM', onSignal);
        process.off('SIGINT', onSignal);
        options.log(
          forced || cut
            ? `${options.name}: stopped; connections still busy were cut`
            : `${options.name}: stopped`,
        );
        resolve(forced || cut ? 1 : 0);
      });
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
