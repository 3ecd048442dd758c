import {
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { UsageError } from '../../../errors.ts';
import { sendError } from '../../http/json-response.ts';

/** How long the API may take to start answering before the browser gets 504. */
export const DEFAULT_PROXY_TIMEOUT_MS = 10_000;

// Connection-level headers apply to one hop and must not be forwarded (RFC 9110 section 7.6.1).
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Read `API_URL`: an http(s) origin, optionally with a path prefix, without credentials, query
 * or fragment. Throws UsageError `API_URL_INVALID` (exit 2) otherwise.
 */
export function parseApiUrl(raw: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (
    !url ||
    !['http:', 'https:'].includes(url.protocol) ||
    url.username ||
    url.password ||
    url.search ||
    url.hash
  ) {
    throw new UsageError('API_URL_INVALID', 'API_URL is not an http(s) URL of the API', {
      hint: 'set API_URL to the API base URL, such as http://service-api:8080, without credentials or query',
    });
  }
  return url;
}

export type ProxyHandler = (req: IncomingMessage, res: ServerResponse, path: string) => void;

/**
 * Forward a request to the API at `target`, keeping method, body and end-to-end headers, and
 * stream the answer back. If the API does not start answering within `timeoutMs`, or goes quiet
 * that long mid-body, the request is abandoned: 504 JSON (or a cut connection once the answer
 * has begun). An unreachable API gives 502 JSON. `path` is the already normalised request path
 * with its query.
 */
export function createApiProxy(
  target: URL,
  options: { timeoutMs?: number; log?: (line: string) => void } = {},
): ProxyHandler {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROXY_TIMEOUT_MS;
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const prefix = target.pathname.replace(/\/+$/, '');
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;

  return (req, res, path) => {
    const upstream = send({
      protocol: target.protocol,
      hostname: target.hostname.replace(/^\[|\]$/g, ''),
      port: target.port || undefined,
      method: req.method,
      path: prefix + path,
      headers: forwardHeaders(req, target),
    });
    // One outcome per request: the first failure answers (or cuts) and silences the rest.
    let settled = false;
    const fail = (status: 502 | 504, message: string, cause: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      upstream.destroy();
      log(`service-web: ${req.method} ${path} -> API: ${cause}`);
      if (!res.headersSent) sendError(res, status, message);
      else res.destroy();
    };
    const deadline = setTimeout(
      () => fail(504, 'the API did not answer in time', `no answer within ${timeoutMs} ms`),
      timeoutMs,
    );
    upstream.setTimeout(timeoutMs, () => fail(504, 'the API stopped answering', `idle for ${timeoutMs} ms`));
    upstream.on('error', (error: NodeJS.ErrnoException) =>
      fail(502, 'the API is unavailable', error.code ?? error.message),
    );
    upstream.on('response', (answer) => {
      clearTimeout(deadline);
      res.writeHead(answer.statusCode ?? 502, responseHeaders(answer));
      answer.pipe(res);
      answer.on('end', () => {
        settled = true;
      });
      answer.on('error', (error) => fail(502, 'the API is unavailable', error.message));
    });
    // The browser went away: stop the request to the API too.
    res.on('close', () => {
      if (res.writableFinished || settled) return;
      settled = true;
      clearTimeout(deadline);
      upstream.destroy();
    });
    req.pipe(upstream);
  };
}

function forwardHeaders(req: IncomingMessage, target: URL): OutgoingHttpHeaders {
  const named = String(req.headers.connection ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase());
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (!HOP_BY_HOP.has(name) && !named.includes(name) && value !== undefined) headers[name] = value;
  }
  const client = req.socket.remoteAddress ?? '';
  const prior = req.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = prior ? `${prior}, ${client}` : client;
  headers['x-forwarded-host'] = req.headers.host ?? '';
  headers['x-forwarded-proto'] = 'http';
  headers.host = target.host;
  return headers;
}

function responseHeaders(answer: IncomingMessage): OutgoingHttpHeaders {
  const named = String(answer.headers.connection ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase());
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(answer.headers)) {
    if (!HOP_BY_HOP.has(name) && !named.includes(name) && value !== undefined) headers[name] = value;
  }
  return headers;
}
