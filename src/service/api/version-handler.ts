import { UsageError } from '../../errors.ts';
import { parseCore } from '../../version/parse.ts';
import { createJsonEndpoint, type RequestHandler } from '../http/json-endpoint.ts';

export type { NextFunction, RequestHandler } from '../http/json-endpoint.ts';

export interface VersionHandlerOptions {
  /** The API's version as resolved at start-up (`resolveVersion`), reported exactly as given. */
  version: string;
  /** Lowest CLI version accepted: strict `X.Y.Z` (normally `MIN_CLI_VERSION`). */
  minCliVersion: string;
}

/** The path the handler answers. */
export const VERSION_PATH = '/api/version';

/**
 * The version endpoint, `GET /api/version` -> `{"version": ..., "min_cli_version": "X.Y.Z"}`.
 *
 * Usable as a `node:http` request listener (`http.createServer(handler)`: other paths get 404
 * JSON) and as Express/Connect middleware mounted at the root (`app.use(handler)`: other paths go
 * to `next()`). The body and headers are computed once, here: exactly those two fields,
 * `Cache-Control: no-store`, `X-Content-Type-Options: nosniff`. HEAD gets the headers without a
 * body, other methods 405 with `Allow: GET, HEAD`. It reads no credentials and nothing else from
 * the request.
 *
 * @throws UsageError `MIN_CLI_VERSION_INVALID` when `minCliVersion` is not strict `X.Y.Z`, and
 *   `VERSION_INVALID` when `version` is not a non-empty string.
 */
export function createVersionHandler(options: VersionHandlerOptions): RequestHandler {
  const { version, minCliVersion } = options;
  if (typeof minCliVersion !== 'string' || !parseCore(minCliVersion)) {
    throw new UsageError(
      'MIN_CLI_VERSION_INVALID',
      `min_cli_version "${String(minCliVersion)}" is not X.Y.Z`,
      {
        hint: 'pass the minimum as three dotted numbers without a "v", e.g. "1.4.0"',
      },
    );
  }
  if (typeof version !== 'string' || version === '') {
    throw new UsageError('VERSION_INVALID', 'the API version must be a non-empty string', {
      hint: 'pass the result of resolveVersion(), which is "unknown" when nothing else is known',
    });
  }
  return createJsonEndpoint(VERSION_PATH, { version, min_cli_version: minCliVersion });
}
