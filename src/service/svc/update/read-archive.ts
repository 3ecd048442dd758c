import { gunzipSync } from 'node:zlib';

export interface ArchiveEntry {
  /** Path inside the package, without npm's top-level directory (`package.json`, `svc.js`). */
  path: string;
  content: Buffer;
}

const BLOCK = 512;
const MAX_UNPACKED = 256 * 1024 * 1024;

/**
 * The regular files of an npm package tarball (gzip + ustar), read in memory. npm wraps a
 * package in one top directory (`package/`), which is dropped. Throws an Error with a plain
 * reason when the bytes are not a gzip'd tar. Only what `svc update` needs to check an archive
 * before handing it to npm: not a general tar reader (no links, sparse files or GNU long names).
 */
export function readPackageArchive(gz: Uint8Array): ArchiveEntry[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(gz, { maxOutputLength: MAX_UNPACKED });
  } catch (error) {
    throw new Error(`not a gzip archive (${(error as Error).message})`);
  }
  const entries: ArchiveEntry[] = [];
  let paxPath: string | undefined;
  for (let offset = 0; offset + BLOCK <= tar.length; ) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break; // end-of-archive marker
    if (!checksumOk(header)) throw new Error(`not a tar archive (bad header checksum at byte ${offset})`);
    const size = Number.parseInt(text(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156]!);
    const start = offset + BLOCK;
    if (!Number.isFinite(size) || start + size > tar.length) throw new Error('truncated tar archive');
    const content = tar.subarray(start, start + size);
    if (type === 'x') {
      paxPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(content.toString('utf8'))?.[1];
    } else {
      const prefix = text(header, 345, 155);
      const name = paxPath ?? (prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
      paxPath = undefined;
      if (type === '0' || type === '\0') entries.push({ path: name.split('/').slice(1).join('/'), content });
    }
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}

function text(block: Buffer, start: number, length: number): string {
  const raw = block.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? raw.length : end).toString('utf8');
}

function checksumOk(header: Buffer): boolean {
  const stored = Number.parseInt(text(header, 148, 8).trim(), 8);
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
  return stored === sum;
}
