import { boundedGet, joinUrl } from '../../http/bounded-get.ts';
import { printable } from '../../text/printable.ts';
import type { HttpProbeOptions } from '../../version-endpoint/api-version.ts';
import { versionReading } from '../../version-endpoint/version-reading.ts';
import type { ProbeResult } from '../types.ts';

// Attribute order and quoting vary between builds and minifiers; both orders are accepted.
const META_NAME_FIRST =
  /<meta\s[^>]*name\s*=\s*["']?service-client-version["']?[^>]*content\s*=\s*(?:"([^"]*)"|'([^']*)')/i;
const META_CONTENT_FIRST =
  /<meta\s[^>]*content\s*=\s*(?:"([^"]*)"|'([^']*)')[^>]*name\s*=\s*["']?service-client-version["']?/i;

/**
 * The web client: `{webUrl}/version.json` (`{"version": ...}`, written by the build), falling back
 * to the `<meta name="service-client-version">` of the page itself for builds that predate the file
 * or servers that do not serve it.
 */
export async function probeWeb(webUrl: string, options: HttpProbeOptions): Promise<ProbeResult> {
  const jsonUrl = joinUrl(webUrl, '/version.json');
  let jsonProblem: string;
  try {
    const response = await boundedGet(jsonUrl, options);
    const version = response.status === 200 ? versionOfJson(response.body) : undefined;
    if (version !== undefined) return { name: 'web', source: jsonUrl, ...versionReading(version) };
    jsonProblem =
      response.status === 200 ? 'version.json has no "version" string' : `HTTP ${response.status}`;
  } catch (error) {
    // The page will not answer either when the server is down or slow: do not wait twice.
    return failed(jsonUrl, (error as Error).message);
  }
  const pageUrl = webUrl.endsWith('/') ? webUrl : `${webUrl}/`;
  try {
    const response = await boundedGet(pageUrl, { ...options, accept: 'text/html', maxBytes: 1024 * 1024 });
    if (response.status !== 200) {
      return failed(pageUrl, `version.json: ${jsonProblem}; page: HTTP ${response.status}`);
    }
    const meta = META_NAME_FIRST.exec(response.body) ?? META_CONTENT_FIRST.exec(response.body);
    if (!meta) {
      return failed(pageUrl, `version.json: ${jsonProblem}; the page has no service-client-version meta tag`);
    }
    return {
      name: 'web',
      source: `${pageUrl} (meta tag)`,
      ...versionReading(decodeEntities(meta[1] ?? meta[2] ?? '')),
    };
  } catch (error) {
    return failed(pageUrl, (error as Error).message);
  }
}

function versionOfJson(body: string): string | undefined {
  try {
    const doc = JSON.parse(body) as { version?: unknown } | null;
    return typeof doc?.version === 'string' ? doc.version : undefined;
  } catch {
    return undefined;
  }
}

function decodeEntities(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

function failed(source: string, error: string): ProbeResult {
  return { name: 'web', source, version: undefined, error: printable(error, { max: 300 }) };
}
