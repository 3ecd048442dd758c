import { randomBytes } from 'node:crypto';
import { cp, lstat, rename, rm, symlink } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { writeFileAtomically } from '../../../files/atomic-write.ts';
import type { Journal, UpdatePaths } from './update-dir.ts';

/**
 * Put a checked, staged package in the place of the live one, so that at every instant
 * `<prefix>/bin/svc` resolves to a complete svc: first the old one, then the staged one, then the
 * new live one. Every step is idempotent and the order of the checks makes it safe to run again
 * from the top after a kill at any point (recovery does exactly that):
 *
 * 1. `bin/svc` -> the staged package (unless the live package is already the new one).
 *    `rename(2)` of a new link over the old one is atomic: the name always resolves.
 * 2. The live package moves aside to `previous` (the bin link no longer goes through it).
 *    Once `previous` exists, a live package can only be the new copy made in step 3.
 * 3. A copy of the staged package is made under a private name and renamed to the live name:
 *    rename(2) of a directory to a free name is atomic, so the live name is either absent or
 *    complete. The copy, not the staged directory itself, moves, because the bin link still
 *    points into the staged directory until step 4.
 * 4. `bin/svc` -> the live package again, the relative link npm itself writes.
 * 5. The journal says `done`; then the update directory goes.
 */
export async function switchToStaged(paths: UpdatePaths, journal: Journal): Promise<void> {
  const bin = journal.bin ?? 'svc.js';
  const liveIsNew = (await exists(paths.previous)) && (await exists(paths.live));
  if (!liveIsNew) {
    await pointBinAt(paths.binLink, join(paths.staged, bin));
    if ((await exists(paths.live)) && !(await exists(paths.previous))) {
      await rename(paths.live, paths.previous);
    }
    if (!(await exists(paths.live))) {
      const copy = join(paths.dir, `next-${process.pid}-${randomBytes(4).toString('hex')}`);
      await cp(paths.staged, copy, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
      // Another recovery may have won the race to the live name: its copy is as good as ours.
      await rename(copy, paths.live).catch(async (error: NodeJS.ErrnoException) => {
        await rm(copy, { recursive: true, force: true });
        if (!(await exists(paths.live))) throw error;
      });
    }
  }
  await pointBinAt(paths.binLink, join(paths.live, bin));
  await writeJournal(paths, { ...journal, state: 'done' });
  await rm(paths.dir, { recursive: true, force: true });
}

/** Replace the `bin/svc` link in one rename, with a relative target as npm writes it. */
export async function pointBinAt(binLink: string, target: string): Promise<void> {
  const temporary = `${binLink}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await symlink(relative(dirname(binLink), target), temporary);
  try {
    await rename(temporary, binLink);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** The journal is replaced by rename too: a reader sees the old state or the new, never half. */
export function writeJournal(paths: UpdatePaths, journal: Journal): Promise<void> {
  return writeFileAtomically(paths.journal, `${JSON.stringify(journal)}\n`);
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
