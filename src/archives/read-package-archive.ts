import { gunzipSync } from 'node:zlib';

export interface ArchiveEntry {
  /** Path inside the package, without npm's top-level directory (`package.json`, `svc.js`). */
  path: string;
  content: Buffer;
  /** Its mode bits, as the header gives them (npm packs 0644 or 0755). */
  mode: number;
}

const BLOCK = 512;
const MAX_UNPACKED = 256 * 1024 * 1024;
// Per-file pax keys that only describe an entry; any other (size, linkpath, ...) could make npm's
// tar reader see a different file than this one, so it is refused.
const PAX_KEYS = new Set(['path', 'mtime', 'atime', 'ctime', 'uid', 'gid', 'uname', 'gname', 'comment']);

/**
 * The regular files of an npm package tarball (gzip + ustar), read in memory, and refused unless
 * it can mean only one thing: every entry a regular file or directory under `package/` (no links,
 * devices, GNU long names or global pax headers), no `.`/`..`/empty path segment, no path twice
 * (two `package/svc.js` entries: the trial would run one and npm install the other).
 * npm's top directory (`package/`) is dropped from the paths returned. Throws an Error with a
 * plain reason, phrased to follow "it is" / "it has".
 */
export function readPackageArchive(gz: Uint8Array): ArchiveEntry[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(gz, { maxOutputLength: MAX_UNPACKED });
  } catch (error) {
    throw new Error(`not a gzip archive (${(error as Error).message})`);
  }
  const entries: ArchiveEntry[] = [];
  const seen = new Set<string>();
  let paxPath: string | undefined;
  for (let offset = 0; offset + BLOCK <= tar.length; ) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break; // end-of-archive marker
    if (!checksumOk(header)) throw new Error(`not a tar archive (bad header checksum at byte ${offset})`);
    if (!text(header, 257, 6).startsWith('ustar')) throw new Error('not a ustar archive (an old tar header)');
    const size = Number.parseInt(text(header, 124, 12).trim() || '0', 8);
    const type = String.fromCharCode(header[156]!);
    const start = offset + BLOCK;
    if (!Number.isFinite(size) || start + size > tar.length) throw new Error('truncated tar archive');
    const content = tar.subarray(start, start + size);
    if (type === 'x') {
      paxPath = readPax(content);
    } else {
      const prefix = text(header, 345, 155);
      const name = paxPath ?? (prefix ? `${prefix}/${text(header, 0, 100)}` : text(header, 0, 100));
      paxPath = undefined;
      const path = packagePath(name, type);
      if (seen.has(path)) throw new Error(`an archive with two entries for ${shownPath(name)}`);
      seen.add(path);
      if (type === '0' || type === '\0')
        entries.push({
          path,
          content,
          mode: Number.parseInt(text(header, 100, 8).trim() || '0', 8) & 0o7777,
        });
    }
    offset = start + Math.ceil(size / BLOCK) * BLOCK;
  }
  return entries;
}

/** The path under `package/`, or an Error naming what is wrong with the entry. */
function packagePath(name: string, type: string): string {
  if (type === '1' || type === '2') throw new Error(`an archive with a link (${shownPath(name)})`);
  if (type !== '0' && type !== '\0' && type !== '5')
    throw new Error(`an archive with an entry of type "${shownPath(type)}" (${shownPath(name)})`);
  const segments = (type === '5' ? name.replace(/\/$/, '') : name).split('/');
  const bad = segments.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\'));
  if (bad || segments[0] !== 'package' || (segments.length < 2 && type !== '5'))
    throw new Error(`an archive with an entry outside package/ (${shownPath(name)})`);
  return segments.slice(1).join('/');
}

function readPax(content: Buffer): string | undefined {
  let path: string | undefined;
  for (const record of content.toString('utf8').split('\n')) {
    const match = /^\d+ ([^=]+)=(.*)$/.exec(record);
    if (!match) continue;
    const [, key, value] = match;
    if (!PAX_KEYS.has(key!)) throw new Error(`an archive whose pax header sets "${shownPath(key!)}"`);
    if (key === 'path') path = value;
  }
  return path;
}

function shownPath(name: string): string {
  const safe = name.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '?');
  return safe.length > 80 ? `${safe.slice(0, 80)}…` : safe;
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
