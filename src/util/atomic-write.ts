import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export interface FileToWrite {
  path: string;
  content: string | Uint8Array;
  mode?: number;
}

/**
 * Write a set of files so that a failure leaves none of them half-written: every file goes to a
 * temporary sibling first, and only when all are on disk are they renamed into place (a rename
 * within one directory is atomic). On any failure the temporaries are removed.
 */
export async function writeFilesAtomically(files: FileToWrite[]): Promise<void> {
  const staged: { tmp: string; path: string }[] = [];
  try {
    for (const file of files) {
      await mkdir(dirname(file.path), { recursive: true });
      const tmp = `${file.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      staged.push({ tmp, path: file.path });
      await writeFile(tmp, file.content, { mode: file.mode ?? 0o644, flag: 'wx' });
    }
    for (const { tmp, path } of staged) await rename(tmp, path);
  } catch (error) {
    await Promise.all(staged.map(({ tmp }) => rm(tmp, { force: true })));
    throw error;
  }
}

export function writeFileAtomically(path: string, content: string | Uint8Array): Promise<void> {
  return writeFilesAtomically([{ path, content }]);
}
