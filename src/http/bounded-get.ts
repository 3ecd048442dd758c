import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { BodyTooLargeError, readAtMost } from './bounded-body.ts';

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
const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// No keep-alive: a probe asks each server once or twice, and idle pooled sockets would hold the
// command open until every server's keep-alive timeout ran out (seconds, for a fleet).
const agents = { http: new HttpAgent({ keepAlive: false }), https: new HttpsAgent({ keepAlive: false }) };

/**
 * node:http rather than fetch: fetch refuses the "bad ports" of the browser world (6000, 6665,
 * 10080...), on which a self-hosted API may well listen, and hides the socket error behind
 * "fetch failed". A few redirects are followed (a proxy sending http to https).
 */
export async function boundedGet(url: string, options: BoundedGetOptions): Promise<BoundedResponse> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;
  let target = new URL(url);
  try {
    for (let hop = 0; ; hop++) {
      const answer = await getOnce(target, signal, options);
      if (!answer.location || hop === MAX_REDIRECTS) return answer;
      target = new URL(answer.location, target);
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        throw new Error(`redirected to ${target.protocol} URL`);
      }
    }
  } catch (error) {
    throw new Error(describeFailure(error, options.timeoutMs, deadline), { cause: error });
  }
}

function getOnce(
  url: URL,
  signal: AbortSignal,
  options: BoundedGetOptions,
): Promise<BoundedResponse & { location?: string }> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const https = url.protocol === 'https:';
  const request = https ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'GET',
        signal,
        agent: https ? agents.https : agents.http,
        headers: { accept: options.accept ?? 'application/json', 'cache-control': 'no-cache' },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (REDIRECTS.has(status) && location) {
          res.resume();
          resolve({ status, contentType: '', body: '', location });
          return;
        }
        const declared = Number(res.headers['content-length'] ?? Number.NaN);
        if (declared > maxBytes) {
          req.destroy();
          reject(new BodyTooLargeError(maxBytes, declared));
          return;
        }
        readAtMost(res, maxBytes).then(
          (body) =>
            resolve({
              status,
              contentType: String(res.headers['content-type'] ?? ''),
              body: body.toString('utf8'),
            }),
          (error: unknown) => {
            req.destroy();
            reject(error);
          },
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** One short reason an operator can act on. */
export function describeFailure(error: unknown, timeoutMs: number, deadline: AbortSignal): string {
  if (deadline.aborted) return `no answer within ${timeoutMs} ms`;
  const err = error as { name?: string; code?: string; message?: string };
  if (err.name === 'AbortError') return 'cancelled: the deployment deadline passed';
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return 'host name not found';
  if (err.code === 'ECONNRESET') return 'connection reset by the server';
  if (err.code === 'HPE_INVALID_CONSTANT' || err.code?.startsWith('HPE_'))
    return 'the answer is not valid HTTP';
  return err.message ?? String(error);
}

/** Text read from outside, made safe for a terminal and a report line (see `printable`). */

/** `https://x/` and `https://x` name the same base: join paths without doubling the slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`;
}
