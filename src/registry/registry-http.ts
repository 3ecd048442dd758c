import { ExternalError } from '../errors.ts';
import { BodyTooLargeError, readAtMost } from '../http/bounded-body.ts';
import { redact } from '../text/redact.ts';
import type { RegistryAuth } from './registry-auth.ts';
import { parseWwwAuthenticate } from './www-authenticate.ts';

/** An error answer is read for its first message only. */
const ERROR_BODY_BYTES = 64 * 1024;

export interface RegistryRequest {
  method: 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE' | 'PATCH';
  /** A path below the registry (`/v2/...`) or an absolute URL the registry handed out. */
  url: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
  /** Token scopes the request needs (`repository:<name>:pull[,push]`). */
  scopes: string[];
  /** What the request is doing, for messages: "PUT manifest service-api:v1.2.0". */
  what: string;
  /** Statuses the caller handles itself (404 for "not found", 202...). Others become errors. */
  accept?: number[];
  timeoutMs?: number;
}

/**
 * The one place the registry client talks HTTP: a deadline on every request, authorization (one
 * retry after a 401 with what the challenge asked for), and errors that say what failed, with the
 * registry's own error code and message, sanitised and redacted, and a hint.
 */
export class RegistryHttp {
  /** Requests sent to the registry (token requests are counted by the auth). */
  requests = 0;

  constructor(
    readonly host: string,
    readonly baseUrl: string,
    private readonly auth: RegistryAuth,
    private readonly timeoutMs: number,
  ) {}

  async send(req: RegistryRequest): Promise<Response> {
    let response = await this.once(req);
    // docker-registry's filesystem storage answers 500 to a read of a tag that another client is
    // rewriting at that moment (concurrent promotions): a read is asked again, twice.
    for (
      let i = 1;
      i <= 2 && response.status === 500 && (req.method === 'GET' || req.method === 'HEAD');
      i++
    ) {
      await response.body?.cancel().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 50 * i));
      response = await this.once(req);
    }
    if (response.status === 401) {
      const challenges = parseWwwAuthenticate(response.headers.get('www-authenticate'));
      await response.body?.cancel().catch(() => {});
      const retry = await this.auth.challenged(challenges, req.scopes, false);
      if (retry) response = await this.once(req);
      if (response.status === 401) {
        await this.auth.challenged(
          parseWwwAuthenticate(response.headers.get('www-authenticate')),
          req.scopes,
          true,
        );
        throw await this.failure(req, response);
      }
    }
    if (response.ok || req.accept?.includes(response.status)) return response;
    throw await this.failure(req, response);
  }

  private async once(req: RegistryRequest): Promise<Response> {
    const url = new URL(req.url, this.baseUrl);
    const authorization = await this.auth.header(req.scopes);
    const headers: Record<string, string> = { ...req.headers };
    // Never send credentials to a host other than the registry (a redirect target, a CDN).
    if (authorization && url.origin === new URL(this.baseUrl).origin)
      headers['authorization'] = authorization;
    const timeout = req.timeoutMs ?? this.timeoutMs;
    this.requests++;
    try {
      return await fetch(url, {
        method: req.method,
        headers,
        // TypeScript's DOM lib types a body as ArrayBuffer-backed only; any Uint8Array works.
        ...(req.body ? { body: req.body as unknown as BodyInit } : {}),
        redirect: 'follow',
        signal: AbortSignal.timeout(timeout),
      });
    } catch (error) {
      const timedOut = (error as Error)?.name === 'TimeoutError';
      const cause = (error as { cause?: { code?: string } })?.cause?.code;
      throw new ExternalError(
        timedOut ? 'REGISTRY_TIMEOUT' : 'REGISTRY_UNREACHABLE',
        timedOut
          ? `${req.what} on ${this.host}: no answer within ${timeout} ms`
          : `${req.what} on ${this.host}: the connection failed${cause ? ` (${cause})` : ''}`,
        {
          hint: timedOut
            ? 'the registry is slow or stuck; try again, or check its health'
            : `check that the registry at ${this.baseUrl} is running and reachable, then run the command again`,
          cause: error,
        },
      );
    }
  }

  /**
   * The body of a response, at most `maxBytes`, read as it streams and cut there: a registry that
   * sends a 60 MB manifest or a body that never ends costs at most the limit in memory. The request's
   * deadline covers the body too: a body that stalls is cut when it passes. Both are refusals of the
   * peer (exit 3) naming the limit or the deadline.
   */
  async readBody(
    response: Response,
    req: Pick<RegistryRequest, 'what' | 'timeoutMs'>,
    maxBytes: number,
  ): Promise<Uint8Array> {
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    const tooLarge = (size?: number) =>
      new ExternalError(
        'REGISTRY_RESPONSE_TOO_LARGE',
        `${req.what} on ${this.host}: the answer is ${size === undefined ? 'more than' : `${size} bytes, over`} the ${maxBytes}-byte limit; it was cut`,
        {
          hint: 'the registry sent far more than such a document holds; check what it serves at this address',
        },
      );
    if (declared > maxBytes) {
      await response.body?.cancel().catch(() => {});
      throw tooLarge(declared);
    }
    if (!response.body) return new Uint8Array();
    try {
      // DOM typings lack the async iterator Node's web streams have.
      return await readAtMost(response.body as unknown as AsyncIterable<Uint8Array>, maxBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) throw tooLarge();
      const name = (error as Error)?.name;
      const timeout = req.timeoutMs ?? this.timeoutMs;
      if (name === 'TimeoutError' || name === 'AbortError')
        throw new ExternalError(
          'REGISTRY_TIMEOUT',
          `${req.what} on ${this.host}: the answer did not complete within ${timeout} ms; it was cut`,
          { hint: 'the registry is slow or stuck sending; try again, or check its health', cause: error },
        );
      throw new ExternalError('REGISTRY_UNREACHABLE', `${req.what} on ${this.host}: the answer broke off`, {
        hint: 'the connection to the registry failed mid-answer; run the command again',
        cause: error,
      });
    }
  }

  private async failure(req: RegistryRequest, response: Response): Promise<ExternalError> {
    const text =
      req.method === 'HEAD'
        ? ''
        : await this.readBody(response, req, ERROR_BODY_BYTES)
            .then((bytes) => Buffer.from(bytes).toString('utf8'))
            .catch(() => '');
    const detail = registryErrorText(text);
    const status = response.status;
    const code =
      status === 401
        ? 'REGISTRY_UNAUTHORIZED'
        : status === 403
          ? 'REGISTRY_DENIED'
          : status === 429
            ? 'REGISTRY_RATE_LIMITED'
            : 'REGISTRY_ERROR';
    const hint =
      status === 401
        ? `log in with \`docker login ${this.host}\` (release reads DOCKER_CONFIG or ~/.docker/config.json)`
        : status === 403
          ? 'the credentials in use lack access to this repository; ask for push rights or use another account'
          : status === 429
            ? 'the registry is rate limiting; wait and run the command again'
            : status >= 500
              ? 'the registry failed; run the command again, and check its logs if it persists'
              : 'the registry rejected the request; check the repository name and the image';
    return new ExternalError(
      code,
      `${req.what} on ${this.host} failed: HTTP ${status}${detail ? ` ${detail}` : ''}`,
      {
        hint,
      },
    );
  }
}

/** `{"errors":[{"code","message"}]}` as one short line: no control characters, secrets redacted. */
export function registryErrorText(body: string): string {
  let text: string;
  try {
    const parsed = JSON.parse(body) as { errors?: unknown } | null;
    // Any shape may come back: `{"errors":5}`, `[null]`; only objects in a list are read.
    const errors = Array.isArray(parsed?.errors) ? (parsed.errors as unknown[]) : [];
    text = errors
      .filter((e): e is { code?: unknown; message?: unknown } => typeof e === 'object' && e !== null)
      .map((e) => `${String(e.code ?? '')}: ${String(e.message ?? '')}`)
      .join('; ');
  } catch {
    text = body;
  }
  const clean = redact(text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim());
  return clean.length > 200 ? `${clean.slice(0, 197)}...` : clean;
}
