import { type Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';

export const API_BIN = fileURLToPath(new URL('../../bin/service-api.js', import.meta.url));
export const WORKER_BIN = fileURLToPath(new URL('../../bin/service-worker.js', import.meta.url));

/** The one line the API prints on stdout when ready (contracts.md). */
export const API_READY = /^service-api (\S+) \(source (env|git|none)\) listening on (?<url>http:\/\/\S+)$/m;

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * One HTTP request with node:http, which (unlike fetch) sends the path exactly as given, so
 * `..` and odd encodings reach the server.
 */
export function request(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; agent?: Agent | false } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const req = httpRequest(
      {
        host: bare(url.hostname),
        port: url.port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: options.agent ?? false,
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${options.method ?? 'GET'} ${path}: no answer in 10 s`)));
    req.on('error', reject);
    req.end();
  });
}

export function jsonBody(reply: Reply): unknown {
  return JSON.parse(reply.body.toString('utf8'));
}

/** Write raw bytes on a fresh connection and return everything the server sends until it closes. */
export function rawExchange(base: string, text: string, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    const socket = connect(Number(url.port), bare(url.hostname));
    let received = '';
    socket.setEncoding('utf8');
    socket.setTimeout(timeoutMs, () =>
      socket.destroy(new Error(`no close within ${timeoutMs} ms: ${received}`)),
    );
    socket.on('connect', () => socket.write(text));
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

/** What a leaked stack trace or source path looks like; no response of ours may match. */
export const STACK_LIKE = /\n\s+at |\.ts:\d+|node:internal|Error:/;

/** `[::1]` in a URL is `::1` to a socket. */
export function bare(hostname: string): string {
  return hostname.replace(/^\[(.*)\]$/, '$1');
}
