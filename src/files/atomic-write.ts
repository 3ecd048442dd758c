import { chmod, chown, link, mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { sibling } from './own-temporaries.ts';

export { sibling, temporaryOwner } from './own-temporaries.ts';

export interface FileToWrite {
  path: string;
  content: string | Uint8Array;
  /** The file's mode; by default the existing file's (a 0600 `.env` stays 0600), else 0644. */
  mode?: number;
}

interface Staged {
  path: string;
  tmp: string;
  /** A hard link to the previous file, kept until every rename succeeded. */
  backup?: string;
}

/**
 * Write a set of files all or none. Each file goes to a temporary sibling first; only when all
 * are on disk are they renamed into place (a rename is atomic within a directory). If a rename
 * fails part-way, the files already replaced are put back from hard-link backups (or removed if
 * they did not exist), so readers see either the old set or the new set, never a mix. A file
 * replaced keeps its mode, and its owner where this process may give it. (What a killed writer
 * left behind, `sweepOwnTemporaries` clears: the callers writing users' files call it.)
 */
export async function writeFilesAtomically(files: FileToWrite[]): Promise<void> {
  const staged: Staged[] = [];
  const replaced: Staged[] = [];
  try {
    for (const file of files) {
      await mkdir(dirname(file.path), { recursive: true });
      const entry: Staged = { path: file.path, tmp: sibling(file.path, 'tmp') };
      staged.push(entry);
      const before = await stat(file.path).catch(() => undefined);
      const kept = file.mode === undefined && before ? before.mode & 0o7777 : undefined;
      const mode = file.mode ?? kept ?? 0o644;
      // Created with its final mode (never readable by others first); a kept mode is then set
      // exactly, past the umask (a 0755 script stays executable).
      await writeFile(entry.tmp, file.content, { mode, flag: 'wx' });
      if (kept !== undefined) await chmod(entry.tmp, kept);
      if (before && (before.uid !== process.getuid?.() || before.gid !== process.getgid?.()))
        await chown(entry.tmp, before.uid, before.gid).catch(() => undefined); // only root may give a file away
      const backup = sibling(file.path, 'bak');
      if (await tryLink(file.path, backup)) entry.backup = backup;
    }
    for (const entry of staged) {
      await rename(entry.tmp, entry.path);
      replaced.push(entry);
    }
  } catch (error) {
    for (const entry of replaced.reverse()) {
      if (entry.backup) await rename(entry.backup, entry.path).catch(() => undefined);
      else await rm(entry.path, { force: true });
    }
    throw error;
  } finally {
    await Promise.all(
      staged.flatMap((e) => [rm(e.tmp, { force: true }), e.backup ? rm(e.backup, { force: true }) : []]),
    );
  }
}

export function writeFileAtomically(path: string, content: string | Uint8Array): Promise<void> {
  return writeFilesAtomically([{ path, content }]);
}

async function tryLink(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch {
    return false; // no previous file (or it is not a regular file): nothing to restore
  }
}
