import { posix } from 'node:path';
import { readTar, type TarHeader } from '../archives/tar-reader.ts';
import { RuleError } from '../errors.ts';

/**
 * One entry of an image layer, as the OCI image spec defines them (image-layout "Changesets"):
 * regular files, directories, symbolic and hard links, devices and FIFOs, and the two whiteouts
 * (`.wh.<name>` removes a path of a lower layer; `.wh..wh..opq` empties a directory of them).
 * Paths are absolute (`/usr/bin/node`); a hard link's target is absolute too, as tar names it
 * relative to the layer's root.
 */
export type LayerNode =
  | { type: 'file'; path: string; mode: number; uid: number; gid: number; content: Buffer }
  | { type: 'dir'; path: string; mode: number; uid: number; gid: number; mtime: number }
  | { type: 'symlink'; path: string; target: string }
  | { type: 'hardlink'; path: string; target: string }
  | { type: 'device'; path: string; kind: 'char' | 'block' | 'fifo' }
  | { type: 'whiteout'; path: string }
  | { type: 'opaque'; path: string };

export interface ReadLayerOptions {
  /** For messages: `own-web's rc layer`. */
  what: string;
  /** Only these paths' file content is kept (a base layer's files need not be in memory). */
  keep?: (path: string) => boolean;
  /**
   * Of the kept files, only those whose content passes this keep it (looked at, then dropped):
   * a scan for the files that carry a string holds only those in memory.
   */
  select?: (path: string, content: Buffer) => boolean;
  /** Files bigger than this are not kept, whatever `keep` says (a scan skips media). */
  maxFileBytes?: number;
  /** Refuse a layer whose kept file content passes this (default 256 MiB). */
  maxBytes?: number;
}

const MAX_KEPT = 256 * 1024 * 1024;
const WHITEOUT = '.wh.';
const OPAQUE = '.wh..wh..opq';

/**
 * Every entry of a layer blob (gzipped or plain tar), streamed through the one bounded tar reader
 * (archives/tar-reader.ts): the tar is never whole in memory, and a regular file's content is kept
 * only when `keep` says so (else it is an empty buffer).
 * Throws a RuleError naming the layer when the bytes are not a tar. Links are reported, never
 * followed: comparing a link means comparing its type and target.
 */
export async function readLayer(blob: Uint8Array, options: ReadLayerOptions): Promise<LayerNode[]> {
  const nodes: LayerNode[] = [];
  const max = options.maxBytes ?? MAX_KEPT;
  let kept = 0;
  try {
    for await (const entry of readTar(blob)) {
      const { header } = entry;
      const path = posix.join('/', header.name).replace(/(.)\/+$/, '$1');
      const keep =
        header.type === 'file' &&
        (header.size ?? 0) <= (options.maxFileBytes ?? Number.POSITIVE_INFINITY) &&
        (options.keep?.(path) ?? true);
      let content = Buffer.alloc(0);
      if (keep) {
        const chunks: Buffer[] = [];
        for await (const chunk of entry.chunks()) {
          kept += chunk.length;
          if (kept > max) throw new Error(`its files pass ${max} bytes`);
          chunks.push(chunk);
        }
        content = Buffer.concat(chunks);
        if (options.select && !options.select(path, content)) {
          kept -= content.length;
          content = Buffer.alloc(0);
        }
      }
      const node = nodeOf(header, path, content);
      if (node) nodes.push(node);
    }
  } catch (error) {
    throw new RuleError(
      'LAYER_INVALID',
      `${options.what} is not a readable tar: ${(error as Error).message}`,
      {
        hint: 'the image in the registry is damaged or not an image layer; nothing was written',
      },
    );
  }
  return nodes;
}

function nodeOf(header: TarHeader, path: string, content: Buffer): LayerNode | undefined {
  const mode = (header.mode ?? 0o644) & 0o7777;
  const owner = { uid: header.uid ?? 0, gid: header.gid ?? 0 };
  const base = posix.basename(path);
  if (base === OPAQUE) return { type: 'opaque', path: posix.dirname(path) };
  if (base.startsWith(WHITEOUT))
    return { type: 'whiteout', path: posix.join(posix.dirname(path), base.slice(WHITEOUT.length)) };
  switch (header.type) {
    case 'file':
    case 'contiguous-file':
      return { type: 'file', path, mode, ...owner, content };
    case 'directory':
      return { type: 'dir', path, mode, ...owner, mtime: Math.floor((header.mtime?.getTime() ?? 0) / 1000) };
    case 'symlink':
      return { type: 'symlink', path, target: header.linkname ?? '' };
    case 'link':
      return { type: 'hardlink', path, target: posix.join('/', header.linkname ?? '') };
    case 'character-device':
      return { type: 'device', path, kind: 'char' };
    case 'block-device':
      return { type: 'device', path, kind: 'block' };
    case 'fifo':
      return { type: 'device', path, kind: 'fifo' };
    default:
      // pax headers and GNU long names are folded in by the tar reader; anything else carries no file.
      return undefined;
  }
}

/** What a path holds in an image's filesystem: file bytes, or a link by its type and target. */
export type TreeNode =
  | { type: 'file'; content: Buffer; mode: number; uid?: number; gid?: number }
  | { type: 'symlink' | 'hardlink'; target: string };

/**
 * Apply layers bottom to top as a container runtime does: a later entry replaces an earlier one,
 * a whiteout removes a path and everything under it, an opaque directory hides what lower layers
 * put in it. Directories are implied by their content; devices carry no comparable bytes. Pure.
 */
export function applyLayers(layers: readonly (readonly LayerNode[])[]): Map<string, TreeNode> {
  const tree = new Map<string, TreeNode>();
  const removeUnder = (dir: string, self: boolean) => {
    for (const key of [...tree.keys()])
      if ((self && key === dir) || key.startsWith(dir === '/' ? '/' : `${dir}/`)) tree.delete(key);
  };
  for (const layer of layers) {
    // Whiteouts apply to lower layers only, so they go first within their own layer.
    for (const node of layer)
      if (node.type === 'whiteout') removeUnder(node.path, true);
      else if (node.type === 'opaque') removeUnder(node.path, false);
    for (const node of layer) {
      if (node.type === 'file') {
        const { content, mode, uid, gid } = node;
        tree.set(node.path, { type: 'file', content, mode, uid, gid });
      } else if (node.type === 'symlink' || node.type === 'hardlink')
        tree.set(node.path, { type: node.type, target: node.target });
    }
  }
  return tree;
}

/**
 * A tree as bytes by path, for comparisons that work on bytes (compareRebuild): a file is its
 * content; a link is a line that says its type and target and can never equal a file's bytes
 * by accident (a NUL-led marker no text file starts with), so a link compares as a link.
 */
export function treeBytes(tree: ReadonlyMap<string, TreeNode>): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const [path, node] of tree)
    out.set(path, node.type === 'file' ? node.content : Buffer.from(`\0${node.type} -> ${node.target}\n`));
  return out;
}
