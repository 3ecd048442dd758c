import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from '../files/atomic-write.ts';
import type { Layer, LayerEntry } from '../oci-image/layer.ts';

/**
 * The base layer made from this machine's node, kept between runs: compressing ~100 MB of machine
 * code is most of a first build's time, and the same inputs give the same bytes every time.
 *
 * An entry is keyed by what goes into the layer: every entry's path, mode and content, and for a
 * file copied from this machine (node, its shared libraries, the CA bundle) its path, size, inode,
 * modification and change times (nanoseconds). A new node, an upgraded libc or a binary written in
 * place gives a new key; hashing the binaries instead would cost more than a cached build saves
 * elsewhere. The entry is `<key>.json` naming a blob stored under its own SHA-256; both are written
 * whole then renamed, blob first, and a hit is checked against that SHA-256 before use, so an entry
 * cut short or corrupted is remade, never used.
 */

// Bump when what a layer holds, or this file's shape, changes: older entries are then ignored.
const FORMAT = 1;
/** Entries kept: a machine with a few node versions keeps them all, an old one goes eventually. */
const KEEP = 4;

export type CacheOutcome = 'hit' | 'made' | 'remade' | 'off';

interface Entry {
  format: number;
  key: string;
  digest: string;
  diffId: string;
  size: number;
  nodeVersion: string;
}

/** The key of the layer `entries` make at `epoch` with gzip `level`. */
export async function baseLayerKey(
  entries: readonly LayerEntry[],
  epoch: number,
  level: number,
): Promise<string> {
  const described = await Promise.all(
    entries.map(async (entry) => {
      if (entry.type !== 'file') return entry;
      const { source, content, ...rest } = entry as LayerEntry & { source?: string; content?: unknown };
      if (content !== undefined)
        return {
          ...rest,
          content: createHash('sha256')
            .update(content as string | Uint8Array)
            .digest('hex'),
        };
      const s = await stat(source!, { bigint: true });
      return {
        ...rest,
        source,
        size: String(s.size),
        ino: String(s.ino),
        dev: String(s.dev),
        mtime: String(s.mtimeNs),
        ctime: String(s.ctimeNs),
      };
    }),
  );
  const text = JSON.stringify({ format: FORMAT, epoch, level, entries: described });
  return createHash('sha256').update(text).digest('hex');
}

/** A cached layer: its blob's file (checked against its digest just now), digests and size. */
export interface CachedLayer {
  path: string;
  digest: string;
  diffId: string;
  size: number;
  nodeVersion: string;
}

/**
 * The cached layer of `key`, its blob hashed as it streams (never held in memory: the store copies
 * the file); `missing` when there is none, `corrupt` when its entry or blob is unreadable or not
 * what the entry says (the caller remakes it).
 */
export async function readCachedBaseLayer(
  dir: string,
  key: string,
): Promise<CachedLayer | 'missing' | 'corrupt'> {
  let text: string;
  try {
    text = await readFile(entryPath(dir, key), 'utf8');
  } catch {
    return 'missing';
  }
  try {
    const entry = JSON.parse(text) as Entry;
    if (
      entry.format !== FORMAT ||
      entry.key !== key ||
      !/^sha256:[0-9a-f]{64}$/.test(entry.digest) ||
      !/^sha256:[0-9a-f]{64}$/.test(entry.diffId) ||
      typeof entry.nodeVersion !== 'string' ||
      !Number.isSafeInteger(entry.size)
    )
      return 'corrupt';
    const path = blobPath(dir, entry.digest);
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of createReadStream(path)) {
      size += (chunk as Buffer).length;
      hash.update(chunk as Buffer);
    }
    if (size !== entry.size || `sha256:${hash.digest('hex')}` !== entry.digest) return 'corrupt';
    return { path, digest: entry.digest, diffId: entry.diffId, size, nodeVersion: entry.nodeVersion };
  } catch {
    return 'corrupt';
  }
}

/**
 * Keep a freshly made layer: its blob, then the entry naming it (each written to a temporary file
 * and renamed). Entries beyond the newest few are removed with the blobs no other entry names. A
 * cache that cannot be written is only a slower next build: failures are ignored.
 */
export async function storeBaseLayer(
  dir: string,
  key: string,
  layer: Layer,
  nodeVersion: string,
): Promise<void> {
  try {
    await writeFileAtomically(blobPath(dir, layer.digest), layer.bytes);
    const entry: Entry = {
      format: FORMAT,
      key,
      digest: layer.digest,
      diffId: layer.diffId,
      size: layer.size,
      nodeVersion,
    };
    await writeFileAtomically(entryPath(dir, key), `${JSON.stringify(entry, null, 2)}\n`);
    await prune(dir);
  } catch {
    // A read-only or full disk: the build goes on with the layer it made.
  }
}

/** The entry file of `key` (tests look at it to tell a hit from a remake). */
export function entryPath(dir: string, key: string): string {
  return join(dir, 'base-layers', `${key}.json`);
}

export function blobPath(dir: string, digest: string): string {
  return join(dir, 'base-layers', 'blobs', digest.replace(/^sha256:/, ''));
}

async function prune(dir: string): Promise<void> {
  const root = join(dir, 'base-layers');
  const names = (await readdir(root)).filter((name) => /^[0-9a-f]{64}\.json$/.test(name));
  const entries = await Promise.all(
    names.map(async (name) => {
      const path = join(root, name);
      const [info, text] = await Promise.all([stat(path), readFile(path, 'utf8').catch(() => '')]);
      let digest: string | undefined;
      try {
        digest = (JSON.parse(text) as Entry).digest;
      } catch {}
      return { path, mtime: info.mtimeMs, digest };
    }),
  );
  entries.sort((a, b) => b.mtime - a.mtime);
  const kept = new Set(entries.slice(0, KEEP).map((e) => e.digest));
  for (const old of entries.slice(KEEP)) {
    await rm(old.path, { force: true });
    if (old.digest && !kept.has(old.digest)) await rm(blobPath(dir, old.digest), { force: true });
  }
}
