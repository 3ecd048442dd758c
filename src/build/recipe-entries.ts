import { lstat, readdir, readlink } from 'node:fs/promises';
import { join, posix, relative } from 'node:path';
import type { LayerEntry } from '../oci-image/layer.ts';

/**
 * A recipe's `files` as layer entries: a file goes to `to`, a folder's contents go under `to`.
 * Modes are fixed (0755 folders and executables, 0644 other files), symlinks are kept as links;
 * owner and times are the layer's (createLayer fixes them), so equal sources give equal bytes.
 */
export async function recipeEntries(files: readonly { source: string; to: string }[]): Promise<LayerEntry[]> {
  const entries: LayerEntry[] = [];
  for (const { source, to } of files) {
    const info = await lstat(source);
    if (!info.isDirectory()) {
      entries.push(
        entryOf(source, to, info.mode, info.isSymbolicLink() ? await readlink(source) : undefined),
      );
      continue;
    }
    entries.push({ type: 'dir', path: to });
    for (const item of await readdir(source, { recursive: true, withFileTypes: true })) {
      const full = join(item.parentPath, item.name);
      const path = posix.join(to, relative(source, full).split('\\').join('/'));
      if (item.isDirectory()) entries.push({ type: 'dir', path });
      else if (item.isFile() || item.isSymbolicLink()) {
        const stat = await lstat(full);
        entries.push(
          entryOf(full, path, stat.mode, item.isSymbolicLink() ? await readlink(full) : undefined),
        );
      }
    }
  }
  return entries;
}

function entryOf(source: string, path: string, mode: number, link: string | undefined): LayerEntry {
  if (link !== undefined) return { type: 'symlink', path, target: link };
  return { type: 'file', path, source, mode: mode & 0o111 ? 0o755 : 0o644 };
}
