import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { Duplex } from 'node:stream';
import { trackConnections } from './graceful-close.ts';
import { sendError } from './json-response.ts';

/** How long a client may take; see DEFAULT_LIMITS for why each value. */
export interface ServerLimits {
  /** Time to receive the complete request headers. */
  headersTimeoutMs: number;
  /** Time to receive the complete request (headers and body). */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutMs: number;
  /** A socket with no traffic in either direction for this long is closed (a stalled reader). */
  socketTimeoutMs: number;
  /** How often the header and request timeouts are checked. */
  checkIntervalMs: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  // Our requests are a line and a few headers: 10 s is generous for a real client and short
  // enough that slowloris-style connections cannot pile up.
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  // Long enough for a slow link to keep draining the CLI archive, short enough to drop a reader
  // that stopped reading.
  socketTimeoutMs: 60_000,
  checkIntervalMs: 1_000,
};

export type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/**
 * A `node:http` server with the limits the reference servers share: header, request, keep-alive
 * and idle timeouts; malformed requests answered 400 JSON (408 on timeout, 431 on oversized
 * headers) through `clientError`; a handler that throws or rejects answers 500 JSON and logs the
 * error to stderr, so no stack trace ever reaches a response.
 */
export function createHardenedServer(
  handler: Handler,
  options: { name: string; limits?: Partial<ServerLimits> },
): Server {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown) => {
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    process.stderr.write(`${options.name}: internal error on ${req.method} ${req.url}: ${detail}\n`);
    if (!res.headersSent) sendError(res, 500, 'internal error');
    else res.destroy();
  };
  let track: (req: IncomingMessage, res: ServerResponse) => void = () => {};
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.checkIntervalMs,
      // Checked below instead, so the 400 has the same JSON body as every other error.
      requireHostHeader: false,
    },
    (req, res) => {
      track(req, res);
      if (req.headers.host === undefined && req.httpVersionMinor === 1 && req.httpVersionMajor === 1) {
        return sendError(res, 400, 'malformed request: HTTP/1.1 requires a Host header', {
          Connection: 'close',
        });
      }
      try {
        const done = handler(req, res);
        if (done) done.catch((error: unknown) => fail(req, res, error));
      } catch (error) {
        fail(req, res, error);
      }
    },
  );
  server.timeout = limits.socketTimeoutMs;
  track = trackConnections(server);
  server.on('clientError', answerClientError);
  return server;
}

/**
 * Answer a request Node could not parse or that timed out. Written raw because there is no
 * response object yet; mirrors Node's own guard: never write into a response already under way.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request timed out']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'request headers too large']
        : [400, 'malformed request'];
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
