/**
 * A GET with a deadline and a body cap: probes read servers the operator may not control, so a slow
 * or hostile server can neither hang `release verify` nor make it buffer an unbounded body.
 */
export interface BoundedGetOptions {
  timeoutMs: number;
  /** Bytes of body read at most; more is an error (default 64 KiB, far above any version document). */
  maxBytes?: number;
  /** Cancels the request early (the per-deployment deadline of `--all`). */
  signal?: AbortSignal;
  accept?: string;
}

export interface BoundedResponse {
  status: number;
  contentType: string;
  body: string;
}

export const DEFAULT_MAX_BYTES = 64 * 1024;

export async function boundedGet(url: string, options: BoundedGetOptions): Promise<BoundedResponse> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
  try {
    const response = await fetch(url, {
      signal,
      redirect: 'follow',
      headers: { accept: options.accept ?? 'application/json', 'cache-control': 'no-cache' },
    });
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > maxBytes) {
      await response.body?.cancel();
      throw new Error(`response body of ${declared} bytes is larger than the ${maxBytes}-byte limit`);
    }
    return {
      status: response.status,
      contentType: response.headers.get('content-type') ?? '',
      body: await readCapped(response, maxBytes),
    };
  } catch (error) {
    throw new Error(describeFailure(error, options.timeoutMs, timeout), { cause: error });
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new Error(`response body is larger than the ${maxBytes}-byte limit`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** One short reason an operator can act on, instead of undici's "fetch failed". */
function describeFailure(error: unknown, timeoutMs: number, timeout: AbortSignal): string {
  if (timeout.aborted) return `no answer within ${timeoutMs} ms`;
  const err = error as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err.name === 'AbortError' || err.name === 'TimeoutError')
    return 'cancelled: the deployment deadline passed';
  const code = err.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host name not found';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset by the server';
  if (code) return `${code}${err.cause?.message ? `: ${err.cause.message}` : ''}`;
  if (err.message === 'fetch failed' && err.cause?.message) return err.cause.message;
  return err.message ?? String(error);
}

/**
 * Make text read from outside safe for a terminal and a report line: control and bidi characters
 * are written as visible escapes (so an escape sequence cannot repaint the operator's screen, and
 * the parser then rightly calls the value invalid), and very long values are cut.
 */
export function sanitize(text: string, maxLength = 128): string {
  const escaped = text.replace(
    /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return escaped.length > maxLength ? `${escaped.slice(0, maxLength)}…` : escaped;
}

/** `https://x/` and `https://x` name the same base: join paths without doubling the slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
