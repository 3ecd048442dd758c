import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { posix } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { tarBytes } from '../archives/tar-writer.ts';

/** One thing to put in a layer. Paths are absolute in the image (`/app/api/main.mjs`). */
export type LayerEntry =
  | ({ type: 'dir'; path: string; mode?: number; mtime?: number } & Owner)
  | ({ type: 'file'; path: string; mode?: number; mtime?: number; source: string } & Owner)
  | ({ type: 'file'; path: string; mode?: number; mtime?: number; content: Uint8Array | string } & Owner)
  | { type: 'symlink'; path: string; target: string };

/**
 * An entry's numeric owner, 0/0 unless named: only a layer that goes over someone else's image
 * (a re-stamp) names one, to keep what that image had (names are never written: a runtime goes by
 * the numbers).
 */
interface Owner {
  uid?: number;
  gid?: number;
}

export interface Layer {
  /** The gzip-compressed tar: the blob stored in the registry or layout. */
  bytes: Uint8Array;
  /** `sha256:` of `bytes` (the manifest's layer digest). */
  digest: string;
  /** `sha256:` of the uncompressed tar (the config's `rootfs.diff_ids`). */
  diffId: string;
  size: number;
}

// Fixed so the same inputs give the same bytes on every run: level 6 (a caller may fix another,
// see base-image.ts), and node:zlib writes no file name and a zero mtime in the gzip header. (Different zlib builds may still differ, so a
// reproducible build is promised for the same Node.js version.)
const GZIP_LEVEL = 6;
const gzipAsync = promisify(gzip);

/**
 * A deterministic layer: entries sorted by path, every parent directory present, uid/gid 0 (an
 * entry may name its own) and no user names, one fixed mtime (an entry may name its own), fixed modes (0755 for directories, 0644 for files unless the
 * entry says otherwise). Nothing from the build machine (owner, times, umask) reaches the bytes.
 */
export async function createLayer(
  entries: readonly LayerEntry[],
  mtimeSeconds: number,
  level: number = GZIP_LEVEL,
): Promise<Layer> {
  return createLayerFromTar(await packTar(entries, mtimeSeconds), level);
}

/** A layer from an uncompressed tar made elsewhere (a `docker save`), compressed our way. */
export async function createLayerFromTar(raw: Uint8Array, level: number = GZIP_LEVEL): Promise<Layer> {
  const bytes = await gzipAsync(raw, { level });
  return { bytes, digest: sha256(bytes), diffId: sha256(raw), size: bytes.length };
}

/**
 * The uncompressed deterministic tar of `entries` (the rules of createLayer). `parents: false`
 * leaves out the parent directories `entries` do not name: a layer over someone else's image names
 * the folders it needs with that image's owner and mode (an overlay runtime would make any missing
 * parent root's, hiding the folder below).
 */
export async function packTar(
  entries: readonly LayerEntry[],
  mtimeSeconds: number,
  options: { parents?: boolean } = {},
): Promise<Buffer> {
  const mtime = new Date(mtimeSeconds * 1000);
  return tarBytes(async (tar) => {
    for (const entry of withParents(entries, options.parents ?? true)) {
      const owner = entry.type === 'symlink' ? {} : { uid: entry.uid ?? 0, gid: entry.gid ?? 0 };
      const header = { name: entry.name, mtime, uid: 0, gid: 0, uname: '', gname: '', ...owner };
      if (entry.type === 'dir') {
        const own = entry.mtime === undefined ? {} : { mtime: new Date(entry.mtime * 1000) };
        await tar.add({ ...header, ...own, type: 'directory', mode: entry.mode ?? 0o755 });
      } else if (entry.type === 'symlink') {
        await tar.add({ ...header, type: 'symlink', linkname: entry.target, mode: 0o777 });
      } else {
        const body = 'source' in entry ? await readFile(entry.source) : Buffer.from(entry.content);
        const own = entry.mtime === undefined ? {} : { mtime: new Date(entry.mtime * 1000) };
        await tar.add(
          { ...header, ...own, type: 'file', mode: entry.mode ?? 0o644, size: body.length },
          body,
        );
      }
    }
  });
}

export function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

type Named = LayerEntry & { name: string };

/** Normalise paths, add missing parent directories, reject duplicates, sort by byte order. */
function withParents(entries: readonly LayerEntry[], parents: boolean): Named[] {
  const byName = new Map<string, Named>();
  for (const entry of entries) {
    const name = posix.normalize(entry.path).replace(/^\/+/, '').replace(/\/+$/, '');
    if (!name || name === '.' || name.startsWith('..')) throw new Error(`bad layer path: ${entry.path}`);
    const existing = byName.get(name);
    // Two files at one path, or a file where a directory must be, would make an ambiguous layer.
    if (existing && (existing.type !== 'dir' || entry.type !== 'dir'))
      throw new Error(`duplicate layer path: ${name}`);
    byName.set(name, { ...entry, name });
    for (let dir = posix.dirname(name); parents && dir !== '.'; dir = posix.dirname(dir)) {
      if (!byName.has(dir)) byName.set(dir, { type: 'dir', path: `/${dir}`, name: dir });
    }
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
