import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { InternalError } from '../../errors.ts';

interface Tracked {
  /** Every open connection, with the number of its responses not yet flushed to the OS. */
  busy: Map<Socket, number>;
  closing: boolean;
}

const tracked = new WeakMap<Server, Tracked>();

/**
 * Count, per connection, the responses still being written, so shutdown knows which connections
 * are idle. Node's own `closeIdleConnections()` (which `server.close()` calls) treats a response
 * as done once `res.end()` was called, even while megabytes of it still wait for a slow reader:
 * it would cut a CLI archive download half-way. Here a response is busy until its `finish` (the
 * last byte handed to the OS) or `close`.
 */
export function trackConnections(server: Server): void {
  const state: Tracked = { busy: new Map(), closing: false };
  tracked.set(server, state);
  server.on('connection', (socket: Socket) => {
    state.busy.set(socket, 0);
    socket.once('close', () => state.busy.delete(socket));
  });
  // Prepended so that during shutdown `Connection: close` is set before any handler writes.
  server.prependListener('request', (req, res) => {
    const socket = req.socket;
    state.busy.set(socket, (state.busy.get(socket) ?? 0) + 1);
    if (state.closing) res.setHeader('Connection', 'close');
    let done = false;
    const finished = () => {
      if (done) return;
      done = true;
      const left = (state.busy.get(socket) ?? 1) - 1;
      state.busy.set(socket, left);
      if (state.closing && left === 0) socket.end();
    };
    res.once('finish', finished);
    res.once('close', finished);
  });
}

export interface CloseResult {
  /** Connections still busy when the grace period ran out, and cut. */
  forced: boolean;
}

/**
 * Stop accepting connections, close idle ones now, let every response in flight finish (then
 * close its connection), and resolve when no connection is left. After `graceMs` whatever remains
 * is cut: a client that stopped reading must not hold the process forever.
 */
export function closeGracefully(server: Server, graceMs: number): Promise<CloseResult> {
  const state = tracked.get(server);
  if (!state)
    throw new InternalError('SERVER_NOT_TRACKED', 'closeGracefully needs a server from createHardenedServer');
  state.closing = true;
  return new Promise((resolve) => {
    let forced = false;
    const deadline = setTimeout(() => {
      forced = true;
      for (const socket of state.busy.keys()) socket.destroy();
    }, graceMs);
    // net.Server's close, not http.Server's: the latter first runs closeIdleConnections() (see
    // trackConnections). This one only stops listening and calls back once every socket closed.
    NetServer.prototype.close.call(server, () => {
      clearTimeout(deadline);
      resolve({ forced });
    });
    for (const [socket, responses] of state.busy) if (responses === 0) socket.destroy();
  });
}

/** Cut every connection at once (a second signal). */
export function closeAllNow(server: Server): void {
  for (const socket of tracked.get(server)?.busy.keys() ?? []) socket.destroy();
  server.closeAllConnections();
}
