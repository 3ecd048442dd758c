import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StatusDocument } from './status-json.ts';
import { statusPage } from './status-page.ts';

export interface WatchEndpoints {
  /** The Prometheus text exposition and its content type. */
  metrics(): Promise<{ body: string; contentType: string }>;
  status(): StatusDocument;
}

/**
 * The watch's HTTP server: `GET /metrics`, `GET /` (the status page), `GET /status.json` (what the
 * page refreshes from), `GET /healthz`. Read-only: any other method is 405. Answers come from the
 * last round's state, never from a probe, so a slow deployment cannot stall a scrape or the page.
 */
export function createWatchServer(endpoints: WatchEndpoints): Server {
  const server = createServer((req, res) => {
    handle(req, res, endpoints).catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', `internal error: ${String(error)}\n`);
      else res.destroy();
    });
  });
  // A scraper or a phone left open must not hold sockets forever; nothing here takes long.
  server.requestTimeout = 10_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 5_000;
  return server;
}

async function handle(req: IncomingMessage, res: ServerResponse, endpoints: WatchEndpoints): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://watch').pathname;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('allow', 'GET, HEAD');
    send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
    return;
  }
  switch (path) {
    case '/metrics': {
      const { body, contentType } = await endpoints.metrics();
      send(res, 200, contentType, body);
      return;
    }
    case '/healthz':
      send(res, 200, 'application/json', '{"status":"ok"}\n');
      return;
    case '/status.json':
      send(res, 200, 'application/json', `${JSON.stringify(endpoints.status())}\n`);
      return;
    case '/': {
      const nonce = randomBytes(16).toString('base64');
      res.setHeader(
        'content-security-policy',
        `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      );
      res.setHeader('x-content-type-options', 'nosniff');
      res.setHeader('referrer-policy', 'no-referrer');
      send(res, 200, 'text/html; charset=utf-8', statusPage(endpoints.status(), nonce));
      return;
    }
    default:
      send(res, 404, 'text/plain; charset=utf-8', 'not found: try /, /metrics, /status.json or /healthz\n');
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/** Listen on `host:port`; resolves with the URL actually bound (port 0 picks one). */
export function listenOn(server: Server, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${shown}:${address.port}`);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
