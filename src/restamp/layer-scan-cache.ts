import { createHash } from 'node:crypto';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from '../files/atomic-write.ts';
import { userCacheDir } from '../files/user-cache-dir.ts';
import type { LayerNode } from '../oci-image/read-layer.ts';

/**
 * What a version scan of one image layer found (restamp-top-layer.ts), kept between runs in the
 * user's cache: a layer is immutable under its digest, and the scan of an image without our
 * version layer gunzips every layer, its base's too (a node base is ~100 MB of machine code), in
 * the release's promotion and again in each `release verify --registry` of it.
 *
 * An entry is keyed by the layer's digest and by what the scan keeps (the rc version's pattern,
 * the size limit, the paths passed over): another rc, or a changed scan, is another key. It holds
 * every node of the layer as readLayer gave it (links, whiteouts, folders, files), the content of
 * the files the scan selected and nothing else. Written whole then renamed; an entry that is
 * unreadable, too big or not of this shape is ignored (the layer is scanned again and the entry
 * rewritten), so a damaged cache only costs time.
 */

// Bump when what a scan keeps, or this file's shape, changes: older entries are then ignored.
const FORMAT = 2;
/** Entries kept: a few releases' worth of layers; the oldest written go first. */
const KEEP = 256;
/** An entry bigger than this is neither written nor read: a rescan is cheaper than the JSON. */
const MAX_ENTRY_BYTES = 32 * 1024 * 1024;

/** The scan's own parameters, as text: part of every key. */
export type ScanIdentity = string;

export interface LayerScanCache {
  /** The nodes a scan of `digest` found, or undefined when none is cached (or it is unusable). */
  read(digest: string, scan: ScanIdentity): Promise<LayerNode[] | undefined>;
  /** Keep a scan's nodes; failures are ignored (the next run scans again). */
  write(digest: string, scan: ScanIdentity, nodes: readonly LayerNode[]): Promise<void>;
}

/** The cache under the user's cache folder, or undefined when RELEASE_NO_CACHE turns it off. */
export function layerScanCacheFor(env: Record<string, string | undefined>): LayerScanCache | undefined {
  const dir = userCacheDir(env);
  return dir ? layerScanCache(dir) : undefined;
}

export function layerScanCache(cacheDir: string): LayerScanCache {
  const root = join(cacheDir, 'layer-scans');
  const pathOf = (key: string) => join(root, `${key}.json`);
  return {
    async read(digest, scan) {
      const key = scanKey(digest, scan);
      try {
        const path = pathOf(key);
        if ((await stat(path)).size > MAX_ENTRY_BYTES) return undefined;
        return decode(JSON.parse(await readFile(path, 'utf8')), key);
      } catch {
        return undefined;
      }
    },
    async write(digest, scan, nodes) {
      const key = scanKey(digest, scan);
      try {
        const text = JSON.stringify({ format: FORMAT, key, nodes: nodes.map(encode) });
        if (text.length > MAX_ENTRY_BYTES) return;
        await writeFileAtomically(pathOf(key), text);
        await prune(root);
      } catch {
        // A read-only or full disk: the scan's result is used all the same.
      }
    },
  };
}

export function scanKey(digest: string, scan: ScanIdentity): string {
  return createHash('sha256')
    .update(JSON.stringify({ format: FORMAT, digest, scan }))
    .digest('hex');
}

type StoredNode =
  | Exclude<LayerNode, { type: 'file' }>
  | { type: 'file'; path: string; mode: number; uid: number; gid: number; content: string };

function encode(node: LayerNode): StoredNode {
  return node.type === 'file' ? { ...node, content: node.content.toString('base64') } : node;
}

/** The nodes of a parsed entry, or undefined unless every one has exactly a node's shape. */
function decode(entry: unknown, key: string): LayerNode[] | undefined {
  const e = entry as { format?: unknown; key?: unknown; nodes?: unknown };
  if (e?.format !== FORMAT || e.key !== key || !Array.isArray(e.nodes)) return undefined;
  const nodes: LayerNode[] = [];
  for (const raw of e.nodes as Record<string, unknown>[]) {
    const node = decodeNode(raw);
    if (!node) return undefined;
    nodes.push(node);
  }
  return nodes;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isMode = (v: unknown): v is number =>
  Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 0o7777;
const isId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function decodeNode(raw: Record<string, unknown>): LayerNode | undefined {
  if (typeof raw !== 'object' || raw === null || !isString(raw['path'])) return undefined;
  const path = raw['path'];
  switch (raw['type']) {
    case 'file':
      return isMode(raw['mode']) && isId(raw['uid']) && isId(raw['gid']) && isString(raw['content'])
        ? {
            type: 'file',
            path,
            mode: raw['mode'],
            uid: raw['uid'],
            gid: raw['gid'],
            content: Buffer.from(raw['content'], 'base64'),
          }
        : undefined;
    case 'dir':
      return isMode(raw['mode']) && isId(raw['uid']) && isId(raw['gid']) && Number.isSafeInteger(raw['mtime'])
        ? {
            type: 'dir',
            path,
            mode: raw['mode'],
            uid: raw['uid'],
            gid: raw['gid'],
            mtime: raw['mtime'] as number,
          }
        : undefined;
    case 'symlink':
    case 'hardlink':
      return isString(raw['target']) ? { type: raw['type'], path, target: raw['target'] } : undefined;
    case 'device':
      return raw['kind'] === 'char' || raw['kind'] === 'block' || raw['kind'] === 'fifo'
        ? { type: 'device', path, kind: raw['kind'] }
        : undefined;
    case 'whiteout':
    case 'opaque':
      return { type: raw['type'], path };
    default:
      return undefined;
  }
}

async function prune(root: string): Promise<void> {
  const names = (await readdir(root)).filter((name) => /^[0-9a-f]{64}\.json$/.test(name));
  if (names.length <= KEEP) return;
  const entries = await Promise.all(
    names.map(async (name) => {
      const path = join(root, name);
      return { path, mtime: (await stat(path).catch(() => undefined))?.mtimeMs ?? 0 };
    }),
  );
  entries.sort((a, b) => b.mtime - a.mtime);
  for (const old of entries.slice(KEEP)) await rm(old.path, { force: true });
}
