import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigError } from '../../errors.ts';
import { sendError, sendMethodNotAllowed } from '../http/json-response.ts';

/** Where `svc update` and the upgrade message point. */
export const CLI_ARCHIVE_PATH = '/api/cli/download/service-cli.tar.gz';

/** The header carrying the archive's SHA-256 (64 lowercase hex), for `svc update` to check. */
export const CHECKSUM_HEADER = 'X-Checksum-SHA256';

/**
 * The header carrying the archive's signature (base64 DER ECDSA P-256 / SHA-256 over its bytes),
 * from `<archive>.sig` written by a signed build; `svc update` checks it against its baked key.
 */
export const SIGNATURE_HEADER = 'X-Signature-ECDSA-SHA256';

export interface CliArchive {
  /** Where it was read from (for the start-up log). */
  file: string;
  bytes: Buffer;
  sha256: string;
  /** The signature beside the archive (`<file>.sig`), when the build signed it. */
  signature?: string;
}

/**
 * Read and hash the CLI archive once. Held in memory so the bytes served always match the
 * checksum header, even if the file is replaced on disk while the server runs. Undefined when
 * the file does not exist (a build without an archive); any other read failure is a start-up error.
 */
export async function loadCliArchive(file: string): Promise<CliArchive | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new ConfigError(`cannot read the CLI archive ${file}: ${code ?? String(error)}`, [], {
      hint: 'point SERVICE_CLI_ARCHIVE at a readable file (npm run build:cli writes dist/service-cli.tar.gz)',
      cause: error,
    });
  }
  const archive: CliArchive = { file, bytes, sha256: createHash('sha256').update(bytes).digest('hex') };
  const signature = await readSignature(`${file}.sig`);
  if (signature) archive.signature = signature;
  return archive;
}

async function readSignature(file: string): Promise<string | undefined> {
  let text: string;
  try {
    text = (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`cannot read the CLI archive's signature ${file}`, [], { cause: error });
  }
  if (!/^[A-Za-z0-9+/]{16,200}={0,2}$/.test(text))
    throw new ConfigError(`${file} is not a base64 signature`, [], {
      hint: 'rebuild the archive (release build signs it when signing.publicKey is configured), or remove the file',
    });
  return text;
}

/** Serve the archive (GET and HEAD), with `If-None-Match` revalidation; 404 JSON without one. */
export function createArchiveHandler(
  archive: CliArchive | undefined,
): (req: IncomingMessage, res: ServerResponse) => void {
  const etag = archive && `"sha256-${archive.sha256}"`;
  const headers = archive && {
    'Content-Type': 'application/gzip',
    'Content-Length': String(archive.bytes.length),
    'Content-Disposition': 'attachment; filename="service-cli.tar.gz"',
    ETag: etag!,
    [CHECKSUM_HEADER]: archive.sha256,
    ...(archive.signature ? { [SIGNATURE_HEADER]: archive.signature } : {}),
    // Same URL, new bytes after an upgrade: always revalidate, the ETag makes that cheap.
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
  };
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendMethodNotAllowed(res);
    if (!archive || !headers) {
      return sendError(res, 404, 'this build of the API has no CLI archive');
    }
    if (matchesEtag(req.headers['if-none-match'], etag!)) {
      const { 'Content-Length': _length, ...rest } = headers;
      res.writeHead(304, rest);
      return void res.end();
    }
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : archive.bytes);
  };
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
