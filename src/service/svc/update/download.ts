import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ExternalError } from '../../../errors.ts';
import { FetchFailure, openUrl } from '../http/open-url.ts';
import { sanitize } from '../sanitize.ts';
import { SIGNATURE_HEADER } from './signature.ts';

export const ARCHIVE_PATH = '/api/cli/download/service-cli.tar.gz';
const MAX_ARCHIVE_BYTES = 100 * 1024 * 1024;

export interface Downloaded {
  file: string;
  /** The URL the bytes came from, after any redirects (never a downgrade to http). */
  url: string;
  sha256: string;
  size: number;
  /** The `X-Signature-ECDSA-SHA256` header, when the API sent one (checked by signature.ts). */
  signature?: string;
}

export interface DownloadOptions {
  cliVersion: string;
  timeoutMs: number;
}

/**
 * Download the CLI archive to `file` and prove it is what the server meant to send: its SHA-256
 * must equal the `X-Checksum-SHA256` header (an archive without one is refused) and its length the
 * `Content-Length`. Throws an `ExternalError` saying which check failed; `file` may then hold
 * partial bytes, which the caller deletes with its temp directory.
 */
export async function downloadArchive(
  baseUrl: string,
  file: string,
  options: DownloadOptions,
): Promise<Downloaded> {
  const url = `${baseUrl}${ARCHIVE_PATH}`;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  const open = {
    signal: controller.signal,
    abortReason: `the download did not finish within ${Math.round(options.timeoutMs / 1000)} s`,
    maxRedirects: 3,
    headers: { 'user-agent': `svc/${options.cliVersion}`, accept: 'application/gzip' },
  };
  try {
    const { response, url: from } = await openUrl(url, open).catch((error: unknown) => {
      throw failed(url, error instanceof FetchFailure ? error.reason : String(error));
    });
    const status = response.statusCode ?? 0;
    if (status < 200 || status > 299) {
      response.destroy();
      throw failed(
        from,
        `the server answered ${status} ${sanitize(response.statusMessage ?? '', 60)}`.trim(),
      );
    }
    const expected = String(response.headers['x-checksum-sha256'] ?? '')
      .trim()
      .toLowerCase();
    if (!/^[0-9a-f]{64}$/.test(expected)) {
      response.destroy();
      throw new ExternalError(
        'ARCHIVE_NO_CHECKSUM',
        `${from} sent no valid X-Checksum-SHA256 header, so the archive cannot be checked`,
        {
          hint: 'nothing was installed; update the API (it must send the SHA-256 of the archive), or install by hand with npm install -g <url>',
        },
      );
    }
    const declared =
      response.headers['content-length'] === undefined
        ? undefined
        : Number(response.headers['content-length']);
    if (declared !== undefined && declared > MAX_ARCHIVE_BYTES) {
      response.destroy();
      throw failed(from, `the archive is ${declared} bytes, more than the ${MAX_ARCHIVE_BYTES} allowed`);
    }

    const hash = createHash('sha256');
    let size = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        size += chunk.length;
        if (size > MAX_ARCHIVE_BYTES)
          return done(new Error(`the archive is more than ${MAX_ARCHIVE_BYTES} bytes`));
        hash.update(chunk);
        done(null, chunk);
      },
    });
    try {
      await pipeline(response, meter, createWriteStream(file, { flags: 'wx', mode: 0o600 }), {
        signal: controller.signal,
      });
    } catch (error) {
      const reason = controller.signal.aborted
        ? open.abortReason
        : `the connection ended after ${size}${declared === undefined ? '' : ` of ${declared}`} bytes (${sanitize((error as Error).message, 80)})`;
      throw failed(from, reason);
    }
    const sha256 = hash.digest('hex');
    if (declared !== undefined && declared !== size) {
      throw new ExternalError(
        'ARCHIVE_LENGTH_MISMATCH',
        `the archive from ${from} is ${size} bytes but the server announced ${declared}`,
        {
          hint: 'the download was cut short; nothing was installed. Try again.',
        },
      );
    }
    if (sha256 !== expected) {
      throw new ExternalError(
        'ARCHIVE_CHECKSUM_MISMATCH',
        `the archive from ${from} has SHA-256 ${sha256}, but the server announced ${expected}`,
        {
          hint: 'the archive was corrupted or replaced on the way; nothing was installed',
        },
      );
    }
    const signature = String(response.headers[SIGNATURE_HEADER] ?? '').trim();
    return { file, url: from, sha256, size, ...(signature ? { signature: signature.slice(0, 512) } : {}) };
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

function failed(url: string, reason: string): ExternalError {
  return new ExternalError('DOWNLOAD_FAILED', `could not download ${url}: ${reason}`, {
    hint: 'nothing was installed; check the URL and that the API is running',
  });
}
