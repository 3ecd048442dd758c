import { printable } from '../../text/printable.ts';
import { boundedGet, joinUrl } from '../http.ts';
import type { ProbeResult } from '../types.ts';
import { versionReading } from './version-reading.ts';

export interface HttpProbeOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * The API: `GET {url}/api/version` -> `{version, min_cli_version}` (spec section 2). Never throws:
 * a server that is down, slow, or answers something that is not a version document gives a result
 * with `error`, so the other probes' answers still reach the report.
 */
export async function probeApi(url: string, options: HttpProbeOptions): Promise<ProbeResult> {
  const source = joinUrl(url, '/api/version');
  try {
    const response = await boundedGet(source, options);
    if (response.status !== 200) return failed(source, `HTTP ${response.status} from the version endpoint`);
    const doc = parseVersionDocument(response.body);
    if (typeof doc === 'string') return failed(source, doc);
    return {
      name: 'api',
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

function failed(source: string, error: string): ProbeResult {
  return { name: 'api', source, version: undefined, error: printable(error, { max: 300 }) };
}
