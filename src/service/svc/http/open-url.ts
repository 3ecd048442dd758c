import type { ClientRequest, IncomingMessage } from 'node:http';
import { sanitize } from '../sanitize.ts';

/** Why a request failed, in words for a warning (already sanitised). */
export class FetchFailure extends Error {
  constructor(
    readonly reason: string,
    readonly status?: number,
  ) {
    super(reason);
    this.name = 'FetchFailure';
  }
}

export interface OpenOptions {
  /** Aborting it (the caller's total deadline) destroys whatever request or response is open. */
  signal: AbortSignal;
  /** How to describe an abort: "timed out after 3000 ms ...". */
  abortReason: string;
  maxRedirects: number;
  headers: Record<string, string>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GET a URL and follow at most `maxRedirects` redirects by hand, so the count, the schemes and the
 * deadline are ours: fetch's `redirect: 'follow'` allows 20 hops and gives no reason when it
 * stops. Resolves with the first response that is not a redirect, of any status; the caller reads
 * (or destroys) its body. Fails with a `FetchFailure` that says why in words.
 */
export async function openUrl(
  url: string,
  options: OpenOptions,
): Promise<{ url: string; response: IncomingMessage }> {
  let current = parseHttpUrl(url);
  for (let hop = 0; ; hop++) {
    const response = await requestOnce(current, options);
    const status = response.statusCode ?? 0;
    if (!REDIRECTS.has(status)) return { url: current.href, response };
    response.destroy();
    const location = response.headers.location;
    if (!location)
      throw new FetchFailure(`the server answered ${status} (a redirect) without a Location`, status);
    if (hop >= options.maxRedirects) {
      throw new FetchFailure(
        `more than ${options.maxRedirects} redirects (last to ${sanitize(location)})`,
        status,
      );
    }
    current = refuseDowngrade(current, parseHttpUrl(location, current));
  }
}

/**
 * A redirect never leaves https for plain http: the bytes (an archive and its checksum header
 * alike, or the version document) would come from whoever holds the unprotected leg.
 */
function refuseDowngrade(from: URL, to: URL): URL {
  if (from.protocol === 'https:' && to.protocol === 'http:') {
    throw new FetchFailure(
      `refused a redirect from https to plain http (${sanitize(to.href)}): the answer would not be protected`,
    );
  }
  return to;
}

function parseHttpUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new FetchFailure(`not a valid URL: ${sanitize(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchFailure(`redirected to a ${sanitize(url.protocol)} URL, only http and https are followed`);
  }
  return url;
}

async function requestOnce(url: URL, options: OpenOptions): Promise<IncomingMessage> {
  // Loaded on demand and per scheme: https pulls in TLS, which a plain-http check never needs.
  // process.getBuiltinModule, not import(): in the CommonJS bundle an import() of a builtin
  // starts Node's whole ESM loader, a few milliseconds on every gated command.
  const { request } = process.getBuiltinModule(
    url.protocol === 'https:' ? 'node:https' : 'node:http',
  ) as typeof import('node:http');
  if (options.signal.aborted) throw new FetchFailure(options.abortReason);
  return new Promise((resolve, reject) => {
    let req: ClientRequest;
    const onAbort = () => {
      req.destroy();
      reject(new FetchFailure(options.abortReason));
    };
    try {
      // agent: false — one connection, closed afterwards, so no keep-alive socket holds the
      // process open after the command has finished.
      req = request(url, { method: 'GET', headers: options.headers, agent: false });
    } catch (error) {
      reject(new FetchFailure(describeNetworkError(error)));
      return;
    }
    options.signal.addEventListener('abort', onAbort, { once: true });
    req.on('response', (response) => {
      options.signal.removeEventListener('abort', onAbort);
      // From here on the reader owns the deadline; make sure an abort still tears the socket down.
      options.signal.addEventListener('abort', () => response.destroy(), { once: true });
      resolve(response);
    });
    req.on('error', (error) => {
      options.signal.removeEventListener('abort', onAbort);
      reject(new FetchFailure(options.signal.aborted ? options.abortReason : describeNetworkError(error)));
    });
    req.end();
  });
}

/** Read a body into memory, refusing more than `maxBytes`; fails if the connection ends early. */
export function readBody(response: IncomingMessage, maxBytes: number, options: OpenOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      response.destroy();
      reject(new FetchFailure(`the body is ${declared} bytes, more than the ${maxBytes} allowed`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (reason: string) => {
      if (done) return;
      done = true;
      response.destroy();
      reject(new FetchFailure(reason));
    };
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) fail(`the body is more than the ${maxBytes} bytes allowed`);
      else chunks.push(chunk);
    });
    response.on('end', () => {
      if (done) return;
      done = true;
      resolve(Buffer.concat(chunks));
    });
    response.on('error', (error) => fail(options.signal.aborted ? options.abortReason : bodyError(error)));
    response.on('close', () => {
      if (!done)
        fail(
          options.signal.aborted ? options.abortReason : 'the connection closed before the body was complete',
        );
    });
  });
}

function bodyError(error: unknown): string {
  const code = (error as { code?: string }).code;
  if (code === 'ECONNRESET' || (error as Error).message === 'aborted') {
    return 'the connection was reset before the body was complete';
  }
  return describeNetworkError(error);
}

/** Words for a socket or parser error: "connection refused (ECONNREFUSED)". */
export function describeNetworkError(error: unknown): string {
  const code = String((error as { code?: string }).code ?? '');
  const known: Record<string, string> = {
    ECONNREFUSED: 'connection refused',
    ECONNRESET: 'the connection was reset',
    ENOTFOUND: 'host not found',
    EAI_AGAIN: 'host name lookup failed',
    EHOSTUNREACH: 'host unreachable',
    ENETUNREACH: 'network unreachable',
    ETIMEDOUT: 'connection timed out',
    EPIPE: 'the connection was closed',
    CERT_HAS_EXPIRED: 'the TLS certificate has expired',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'the TLS certificate is self-signed',
  };
  if (known[code]) return `${known[code]} (${code})`;
  if (code.startsWith('HPE_')) return `the server's answer is not valid HTTP (${sanitize(code)})`;
  const message = error instanceof Error ? error.message : String(error);
  return sanitize(code ? `${message} (${code})` : message);
}
