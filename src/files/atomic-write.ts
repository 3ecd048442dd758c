import { randomBytes } from 'node:crypto';
import { link, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface FileToWrite {
  path: string;
  content: string | Uint8Array;
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
 * they did not exist), so readers see either the old set or the new set, never a mix.
 */
export async function writeFilesAtomically(files: FileToWrite[]): Promise<void> {
  const staged: Staged[] = [];
  const replaced: Staged[] = [];
  try {
    for (const file of files) {
      await mkdir(dirname(file.path), { recursive: true });
      const entry: Staged = { path: file.path, tmp: sibling(file.path, 'tmp') };
      staged.push(entry);
      await writeFile(entry.tmp, file.content, { mode: file.mode ?? 0o644, flag: 'wx' });
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

/**
 * A temporary file beside `path`, named after this process (`<path>.<pid>.<8 hex>.<kind>`) so that
 * `sweepDeadTemporaries` can tell one left by a killed process from one still being written.
 */
export function sibling(path: string, kind: 'tmp' | 'bak'): string {
  return `${path}.${process.pid}.${randomBytes(4).toString('hex')}.${kind}`;
}

const TEMPORARY = /\.(\d+)\.[0-9a-f]{8}\.(?:tmp|bak)$/;

/** The pid in a temporary file's name made by `sibling`, or undefined for any other name. */
export function temporaryOwner(name: string): number | undefined {
  const match = TEMPORARY.exec(name);
  return match ? Number(match[1]) : undefined;
}

async function tryLink(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch {
    return false; // no previous file (or it is not a regular file): nothing to restore
  }
}
