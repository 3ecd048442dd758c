import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { InternalError } from '../../errors.ts';

interface Tracked {
  /** Every open connection, with its latest response (HTTP/1.1 has one at a time). */
  latest: Map<Socket, ServerResponse | undefined>;
  closing: boolean;
}

const tracked = new WeakMap<Server, Tracked>();

/**
 * Remember each connection's latest response, so shutdown knows which connections are idle.
 * Node's own `closeIdleConnections()` (which `server.close()` calls) treats a response as done
 * once `res.end()` was called, even while megabytes of it still wait for a slow reader: it would
 * cut a CLI archive download half-way. Here a response is busy until `writableFinished` (its last
 * byte handed to the OS). Per request this costs one map write: the version probe is a hot path.
 * Returns the per-request hook, which the server's request listener must call first.
 */
export function trackConnections(server: Server): (req: IncomingMessage, res: ServerResponse) => void {
  const state: Tracked = { latest: new Map(), closing: false };
  tracked.set(server, state);
  server.on('connection', (socket: Socket) => {
    state.latest.set(socket, undefined);
    socket.once('close', () => state.latest.delete(socket));
  });
  // Called by the server's own request listener before the handler (one listener, no closure per
  // request), so that during shutdown `Connection: close` is set before anything is written.
  return (req, res) => {
    state.latest.set(req.socket, res);
    if (state.closing) res.setHeader('Connection', 'close');
  };
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
      for (const socket of state.latest.keys()) socket.destroy();
    }, graceMs);
    // net.Server's close, not http.Server's: the latter first runs closeIdleConnections() (see
    // trackConnections). This one only stops listening and calls back once every socket closed.
    NetServer.prototype.close.call(server, () => {
      clearTimeout(deadline);
      resolve({ forced });
    });
    for (const [socket, res] of state.latest) {
      if (!res || res.writableFinished) socket.destroy();
      else res.once('close', () => socket.end());
    }
  });
}

/** Cut every connection at once (a second signal). */
export function closeAllNow(server: Server): void {
  for (const socket of tracked.get(server)?.latest.keys() ?? []) socket.destroy();
  server.closeAllConnections();
}
