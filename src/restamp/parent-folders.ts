import { posix } from 'node:path';
import type { LayerEntry } from '../oci-image/layer.ts';
import type { LayerNode } from '../oci-image/read-layer.ts';

type Folder = Extract<LayerNode, { type: 'dir' }>;

/**
 * The folder entries a layer of `files` must carry to go over `layers` (an rc's, bottom to top)
 * without changing any folder: each file's parent folders up to `/`, with the owner, mode and
 * time the rc's own entry gives them (the last layer holding the folder's entry wins; a whiteout
 * removes a lower layer's entry, an opaque folder hides those under it). A layer needs them: a
 * runtime whose layers are overlays (overlay2) makes any parent a layer leaves out anew, root's
 * with 0755, and that hides the rc's folder (a service's upload folder becomes root's). A folder
 * no layer names keeps no entry: the runtime made it in the rc too. Pure; sorted by path.
 */
export function parentFolders(
  layers: readonly (readonly LayerNode[])[],
  files: readonly string[],
): LayerEntry[] {
  const folders = new Map<string, Folder>();
  const removeUnder = (dir: string, self: boolean) => {
    for (const key of [...folders.keys()])
      if ((self && key === dir) || key.startsWith(dir === '/' ? '/' : `${dir}/`)) folders.delete(key);
  };
  for (const layer of layers) {
    // As oci-image/read-layer.ts applyLayers: whiteouts apply to lower layers only.
    for (const node of layer)
      if (node.type === 'whiteout') removeUnder(node.path, true);
      else if (node.type === 'opaque') removeUnder(node.path, false);
    for (const node of layer) {
      if (node.type === 'dir') folders.set(node.path, node);
      // A file or link where a folder was replaces it (and what it held).
      else if (node.type !== 'whiteout' && node.type !== 'opaque' && folders.has(node.path))
        removeUnder(node.path, true);
    }
  }
  const wanted = new Set<string>();
  for (const file of files)
    for (let dir = posix.dirname(file); dir !== '/' && dir !== '.'; dir = posix.dirname(dir)) wanted.add(dir);
  return [...wanted].sort().flatMap((path) => {
    const folder = folders.get(path);
    if (!folder) return [];
    const { mode, uid, gid, mtime } = folder;
    return [{ type: 'dir', path, mode, uid, gid, mtime } satisfies LayerEntry];
  });
}
