import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { recipeEntries } from '../build/recipe-entries.ts';
import { applyLayers, readLayer, type TreeNode, treeBytes } from '../oci-image/read-layer.ts';
import type { Descriptor, ImageStore } from '../registry/store.ts';

/**
 * The files `keep` selects of an image, as a container sees them: every layer applied in order
 * (base layers included: a recipe may overwrite a base file, and a whiteout may remove one), links
 * as links. By path, as bytes to compare (oci-image/read-layer.ts treeBytes). Only kept files'
 * content is held in memory.
 */
export async function imageTreeFiles(
  store: ImageStore,
  repository: string,
  layers: readonly Descriptor[],
  keep: (path: string) => boolean,
): Promise<Map<string, Buffer>> {
  const read = [];
  for (const [i, layer] of layers.entries())
    read.push(
      await readLayer(await store.getBlob(repository, layer.digest), {
        what: `${repository}'s rc layer ${i + 1} (${layer.digest.slice(0, 19)})`,
        keep,
      }),
    );
  const tree = applyLayers(read);
  for (const path of [...tree.keys()]) if (!keep(path)) tree.delete(path);
  return treeBytes(tree);
}

/**
 * What a recipe's `files` put in an image, read from a checkout (`dir`) the way the build packs
 * them (build/recipe-entries.ts): files by content, symlinks as links, so a rebuild compares
 * with the rc's image entry for entry.
 */
export async function recipeTreeFiles(
  dir: string,
  files: readonly { from: string; to: string }[],
): Promise<Map<string, Buffer>> {
  const tree = new Map<string, TreeNode>();
  const entries = await recipeEntries(files.map((f) => ({ source: resolve(dir, f.from), to: f.to })));
  for (const entry of entries) {
    if (entry.type === 'symlink') tree.set(entry.path, { type: 'symlink', target: entry.target });
    else if (entry.type === 'file')
      tree.set(entry.path, {
        type: 'file',
        mode: entry.mode ?? 0o644,
        content: 'source' in entry ? await readFile(entry.source) : Buffer.from(entry.content),
      });
  }
  return treeBytes(tree);
}
