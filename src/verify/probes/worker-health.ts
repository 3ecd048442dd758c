import { boundedGet } from '../../http/bounded-get.ts';
import { printable } from '../../text/printable.ts';
import type { HttpProbeOptions } from '../../version-endpoint/api-version.ts';
import { versionReading } from '../../version-endpoint/version-reading.ts';
import type { ProbeResult } from '../types.ts';

/** The worker from its health endpoint: `GET <url>` -> `{"version": ..., "status": "ok"}`. */
export async function probeWorkerHealth(url: string, options: HttpProbeOptions): Promise<ProbeResult> {
  try {
    const response = await boundedGet(url, options);
    const doc = parseObject(response.body);
    if (typeof doc?.version !== 'string') {
      return failed(url, `HTTP ${response.status}, and the body has no "version" string`);
    }
    const status = typeof doc.status === 'string' ? printable(doc.status, { max: 40 }) : undefined;
    return {
      name: 'worker',
      source: url,
      ...versionReading(doc.version),
      // A worker that answers but is unhealthy still reports its version; say so beside it.
      ...(response.status !== 200 || (status && status !== 'ok')
        ? { detail: `health: HTTP ${response.status}${status ? `, status ${status}` : ''}` }
        : {}),
    };
  } catch (error) {
    return failed(url, (error as Error).message);
  }
}

function parseObject(body: string): { version?: unknown; status?: unknown } | undefined {
  try {
    const doc: unknown = JSON.parse(body);
    return typeof doc === 'object' && doc !== null ? doc : undefined;
  } catch {
    return undefined;
  }
}

function failed(source: string, error: string): ProbeResult {
  return { name: 'worker', source, version: undefined, error: printable(error, { max: 300 }) };
}
