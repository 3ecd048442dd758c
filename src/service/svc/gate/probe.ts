import { CLI_PACKAGE_HEADER, cliPackageName } from '../../cli-package-header.ts';
import { FetchFailure, openUrl, readBody } from '../http/open-url.ts';
import { readVersionDocument, type VersionProbe } from './version-document.ts';

export const DEFAULT_TIMEOUT_MS = 3_000;
export const MAX_DOCUMENT_BYTES = 64 * 1024;
export const MAX_REDIRECTS = 3;

export interface ProbeOptions {
  /** Total deadline for connect, headers, redirects and body together. */
  timeoutMs: number;
  cliVersion: string;
}

/**
 * The gate's one `GET {base_url}/api/version`. Never throws and never outlives `timeoutMs`: every
 * way it can go wrong comes back as `{ kind: 'failed', reason }`.
 */
export async function probeVersion(baseUrl: string, options: ProbeOptions): Promise<VersionProbe> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const open = {
    signal: controller.signal,
    abortReason: `no complete answer within ${options.timeoutMs} ms (SVC_VERSION_CHECK_TIMEOUT_MS)`,
    maxRedirects: MAX_REDIRECTS,
    headers: { 'user-agent': `svc/${options.cliVersion}`, accept: 'application/json' },
  };
  try {
    const { response } = await openUrl(`${baseUrl}/api/version`, open);
    const status = response.statusCode ?? 0;
    // A failure status is all we need to know; its body (a CDN's error page) is not read.
    const body =
      status >= 200 && status <= 299 ? await readBody(response, MAX_DOCUMENT_BYTES, open) : new Uint8Array();
    response.destroy();
    const read = readVersionDocument({
      status,
      statusText: response.statusMessage,
      contentType: response.headers['content-type'],
      body,
    });
    const cliPackage = cliPackageName(response.headers[CLI_PACKAGE_HEADER.toLowerCase()]);
    return read.kind === 'document' && cliPackage ? { ...read, cliPackage } : read;
  } catch (error) {
    if (error instanceof FetchFailure)
      return { kind: 'failed', reason: error.reason, ...(error.status ? { status: error.status } : {}) };
    return { kind: 'failed', reason: `unexpected error: ${String((error as Error)?.message ?? error)}` };
  } finally {
    clearTimeout(timer);
    controller.abort(); // tear down anything still open
  }
}
