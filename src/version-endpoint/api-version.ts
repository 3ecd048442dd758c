import { boundedGet, joinUrl } from '../http/bounded-get.ts';
import { printable } from '../text/printable.ts';
import { versionReading } from './version-reading.ts';

export interface HttpProbeOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

/** What the API's version endpoint said: its version, else why it could not be read. */
export interface ApiVersionReading {
  source: string;
  version: string | undefined;
  /** The reported version's real length, when it was too long to be one and `version` is cut. */
  versionLength?: number;
  /** The server's `min_cli_version`, as sent (made printable). */
  minCliVersion?: string;
  error?: string;
}

/**
 * The API: `GET {url}/api/version` -> `{version, min_cli_version}` (spec section 2), the one
 * reading `release verify`, `release watch` and `release upgrade` take of it. Never throws: a
 * server that is down, slow, or answers something that is not a version document gives a reading
 * with `error`, so the other probes' answers still reach the report.
 */
export async function readApiVersion(url: string, options: HttpProbeOptions): Promise<ApiVersionReading> {
  const source = joinUrl(url, '/api/version');
  try {
    const response = await boundedGet(source, options);
    if (response.status !== 200) return failed(source, `HTTP ${response.status} from the version endpoint`);
    const doc = parseVersionDocument(response.body);
    if (typeof doc === 'string') return failed(source, doc);
    return {
      source,
      ...versionReading(doc.version),
      ...(doc.minCliVersion === undefined ? {} : { minCliVersion: printable(doc.minCliVersion) }),
    };
  } catch (error) {
    return failed(source, (error as Error).message);
  }
}

/** The version document, or why it cannot be read. */
export function parseVersionDocument(
  body: string,
): { version: string; minCliVersion: string | undefined } | string {
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    return 'the version endpoint did not answer JSON';
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    return 'the version document is not a JSON object';
  }
  const { version, min_cli_version: min } = doc as Record<string, unknown>;
  if (typeof version !== 'string') return 'the version document has no "version" string';
  // A missing or non-string minimum is reported by the checks (MIN_CLI_VERSION_INVALID), not here:
  // the API's version is still worth comparing.
  return {
    version,
    minCliVersion: typeof min === 'string' ? min : min === undefined ? undefined : String(min),
  };
}

function failed(source: string, error: string): ApiVersionReading {
  return { source, version: undefined, error: printable(error, { max: 300 }) };
}
