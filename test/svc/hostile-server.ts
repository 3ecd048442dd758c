import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';

/**
 * A deliberately misbehaving "API" on loopback, over raw TCP so it can break HTTP itself. The
 * first path segment picks the behaviour: `GET /<case>/api/version`. Each behaviour is bounded:
 * every socket and timer is torn down on close.
 */
export interface HostileCase {
  name: string;
  serve: (socket: Socket, ctx: { path: string; port: number; timers: Set<NodeJS.Timeout> }) => void;
}

const GOOD = '{"version":"v1.0.0","min_cli_version":"1.0.0"}';

function respond(
  socket: Socket,
  status: string,
  headers: Record<string, string | number>,
  body: string | Buffer = '',
): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const head = Object.entries({ 'Content-Length': bytes.length, Connection: 'close', ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.end(Buffer.concat([Buffer.from(`HTTP/1.1 ${status}\r\n${head}\r\n`), bytes]));
}

const json = (body: string) => (socket: Socket) =>
  respond(socket, '200 OK', { 'Content-Type': 'application/json' }, body);
const status =
  (line: string, headers: Record<string, string> = {}, body = '') =>
  (socket: Socket) =>
    respond(socket, line, { 'Content-Type': 'text/html', ...headers }, body);
/** `/redirect-chain-N/...` redirects N times before answering well. */
const chain: HostileCase['serve'] = (socket, { path }) => {
  const n = Number(/redirect-chain-(\d+)/.exec(path)?.[1] ?? 0);
  if (n === 0) return json(GOOD)(socket);
  respond(socket, '307 Temporary Redirect', { Location: `/redirect-chain-${n - 1}/api/version` });
};
const every = (ms: number, timers: Set<NodeJS.Timeout>, tick: () => void) =>
  timers.add(setInterval(tick, ms));
const after = (ms: number, timers: Set<NodeJS.Timeout>, then: () => void) => timers.add(setTimeout(then, ms));

/**
 * Version documents that are well-formed HTTP but wrong as documents (types, forms, control
 * characters): `fixtures/hostile-version-documents.json`, each with the message the gate must give
 * (a regular expression) or `silent`.
 */
function documentCases(): (HostileCase & { expect: RegExp | 'silent' })[] {
  const path = new URL('../../fixtures/hostile-version-documents.json', import.meta.url);
  const docs = JSON.parse(readFileSync(path, 'utf8')) as { name: string; expect: string; body: string }[];
  return docs.map((doc) => ({
    name: doc.name,
    expect: doc.expect === 'silent' ? 'silent' : new RegExp(doc.expect),
    serve: json(doc.body),
  }));
}

/** At least 30 ways for a version endpoint to go wrong (and three harmless oddities as controls). */
export const HOSTILE_CASES: (HostileCase & { expect: RegExp | 'silent' })[] = [
  { name: 'garbage', expect: /not UTF-8|not JSON/, serve: json('\u0000\u00ff\u0001garbage\u0007\u001b') },
  {
    name: 'binary',
    expect: /not UTF-8/,
    serve: (s) => respond(s, '200 OK', {}, Buffer.from([0xff, 0xfe, 0xfd, 0x00, 0x80])),
  },
  {
    name: 'html-200',
    expect: /not JSON.*looks like HTML/,
    serve: status('200 OK', {}, '<!doctype html><title>Sign in</title>'),
  },
  { name: 'empty-200', expect: /body is empty/, serve: (s) => respond(s, '200 OK', {}) },
  {
    name: '204',
    expect: /body is empty/,
    serve: (s) => s.end('HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n'),
  },
  {
    name: 'huge-declared',
    expect: /more than the 65536/,
    serve: (s) => s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${50 * 1024 * 1024}\r\n\r\n{"version":"`),
  },
  {
    name: 'huge-chunked',
    expect: /more than the 65536/,
    serve: (s) => {
      s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
      const chunk = 'x'.repeat(16 * 1024);
      for (let i = 0; i < 8; i++) s.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    },
  },
  {
    name: 'never-ending',
    expect: /no complete answer within 1000 ms/,
    serve: (s, { timers }) => {
      s.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
      every(20, timers, () => s.write('1\r\n \r\n'));
    },
  },
  {
    name: 'delay-5s',
    expect: /no complete answer within 1000 ms/,
    serve: (s, { timers }) => after(5000, timers, () => json(GOOD)(s)),
  },
  {
    name: 'headers-then-stall',
    expect: /no complete answer within 1000 ms/,
    serve: (s) => s.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"version"'),
  },
  {
    name: 'slow-drip',
    expect: /no complete answer within 1000 ms/,
    serve: (s, { timers }) => {
      s.write(`HTTP/1.1 200 OK\r\nContent-Length: ${GOOD.length}\r\n\r\n`);
      let i = 0;
      every(150, timers, () => i < GOOD.length && s.write(GOOD[i++]!));
    },
  },
  {
    name: 'continue-then-stall',
    expect: /no complete answer within 1000 ms/,
    serve: (s) => s.write('HTTP/1.1 100 Continue\r\n\r\n'),
  },
  {
    name: 'reset-mid-body',
    expect: /reset|closed before the body/,
    serve: (s, { timers }) => {
      s.write('HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\n{"version":"v1');
      after(50, timers, () => s.resetAndDestroy());
    },
  },
  { name: 'reset-at-once', expect: /reset|ECONNRESET/, serve: (s) => s.resetAndDestroy() },
  { name: 'close-at-once', expect: /reset|socket hang up|closed/, serve: (s) => s.end() },
  {
    name: 'short-body',
    expect: /closed before the body was complete|reset/,
    serve: (s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"version":"v1.0.0"'),
  },
  { name: 'not-http', expect: /not valid HTTP/, serve: (s) => s.end('HELLO THERE\r\n\r\n') },
  {
    name: 'bad-chunk',
    expect: /not valid HTTP|reset|closed/,
    serve: (s) => s.end('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n'),
  },
  {
    name: 'header-overflow',
    expect: /not valid HTTP/,
    serve: (s) =>
      s.end(`HTTP/1.1 200 OK\r\nX-Junk: ${'a'.repeat(100 * 1024)}\r\nContent-Length: 2\r\n\r\n{}`),
  },
  {
    name: 'gzip-unasked',
    expect: /not UTF-8|not JSON/,
    serve: (s) =>
      respond(
        s,
        '200 OK',
        { 'Content-Encoding': 'gzip', 'Content-Type': 'application/json' },
        gzipSync(GOOD),
      ),
  },
  {
    name: 'redirect-loop',
    expect: /more than 3 redirects/,
    serve: (s, { path }) => respond(s, '302 Found', { Location: path }),
  },
  { name: 'redirect-chain-4', expect: /more than 3 redirects/, serve: chain },
  {
    name: 'redirect-ftp',
    expect: /ftp: URL, only http and https/,
    serve: (s) => respond(s, '301 Moved Permanently', { Location: 'ftp://127.0.0.1/x' }),
  },
  {
    name: 'redirect-no-location',
    expect: /302 \(a redirect\) without a Location/,
    serve: (s) => respond(s, '302 Found', {}),
  },
  {
    name: 'redirect-refused',
    expect: /connection refused/,
    serve: (s) => respond(s, '302 Found', { Location: 'http://127.0.0.1:1/api/version' }),
  },
  ...documentCases(),
  {
    name: 'huge-version-field',
    expect: 'silent',
    serve: json(`{"version":"v0.1.0-${'a'.repeat(50_000)}","min_cli_version":"1.0.0"}`),
  },

  { name: 'deep-nesting', expect: /not JSON/, serve: json('['.repeat(60_000)) },
  {
    name: '401',
    expect: /answered 401 Unauthorized/,
    serve: status('401 Unauthorized', { 'WWW-Authenticate': 'Basic realm="x"' }),
  },
  {
    name: '403-cdn',
    expect: /answered 403 Forbidden/,
    serve: status('403 Forbidden', {}, '<html>Access denied by CDN</html>'),
  },
  { name: '404', expect: /answered 404 Not Found/, serve: status('404 Not Found') },
  { name: '500', expect: /answered 500 Internal Server Error/, serve: status('500 Internal Server Error') },
  {
    name: '503',
    expect: /answered 503 Service Unavailable/,
    serve: status('503 Service Unavailable', { 'Retry-After': '120' }),
  },
  {
    name: 'status-text-controls',
    expect: /answered 500|not valid HTTP/,
    serve: (s) => s.end('HTTP/1.1 500 Oops\u001b[2J\u0007\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'),
  },
  { name: 'status-999', expect: /answered 999/, serve: status('999 Whatever') },
  // Harmless oddities: the check must simply pass, with nothing on stderr.
  { name: 'redirect-chain-3', expect: 'silent', serve: chain },
  { name: 'http10-close-delimited', expect: 'silent', serve: (s) => s.end(`HTTP/1.0 200 OK\r\n\r\n${GOOD}`) },
  // A UTF-8 byte-order mark is dropped by the decoder, as the Encoding standard says.
  { name: 'bom', expect: 'silent', serve: json(`\ufeff${GOOD}`) },
  {
    name: 'text-plain-json',
    expect: 'silent',
    serve: (s) => respond(s, '200 OK', { 'Content-Type': 'text/plain' }, GOOD),
  },
];

export interface HostileServer {
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}

export async function startHostileServer(): Promise<HostileServer> {
  const byName = new Map(HOSTILE_CASES.map((c) => [c.name, c]));
  const sockets = new Set<Socket>();
  let connections = 0;
  let port = 0;
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    const timers = new Set<NodeJS.Timeout>();
    socket.on('close', () => {
      sockets.delete(socket);
      for (const timer of timers) clearTimeout(timer);
    });
    socket.on('error', () => {});
    let head = '';
    socket.on('data', (chunk) => {
      if (head.includes('\r\n\r\n')) return;
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      const path = head.split(' ')[1] ?? '/';
      const name = path.split('/')[1]?.replace(/^redirect-chain-[0-2]$/, 'redirect-chain-3') ?? '';
      const hostile = byName.get(name) ?? byName.get('404')!;
      hostile.serve(socket, { path, port, timers });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  return {
    port,
    connections: () => connections,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
