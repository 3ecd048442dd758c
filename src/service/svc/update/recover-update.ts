import { open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive } from '../../../processes/process-alive.ts';
import { switchToStaged } from './staged-switch.ts';
import { type Journal, ownerAlive, parseJournal, type UpdatePaths } from './update-dir.ts';

/**
 * What recovery did with an update directory: `running` (its owner is alive: not ours to touch),
 * `finished` (the staged package was complete and checked, so the switch was completed),
 * `undone` (nothing had switched yet: the staged files were removed), `cleaned` (the switch was
 * done; only leftovers were removed), `busy` (another process is recovering it right now).
 */
export type Recovery =
  | { outcome: 'running'; journal: Journal }
  | { outcome: 'finished'; version: string | undefined }
  | { outcome: 'undone' | 'cleaned' | 'busy' };

export async function readJournal(paths: UpdatePaths): Promise<Journal | undefined> {
  return parseJournal(await readFile(paths.journal, 'utf8').catch(() => ''));
}

/**
 * Finish or undo an update whose process is gone. Bounded and offline: a few renames, one copy of
 * the staged package (one bundled file and its manifest) and removals; no npm, no network.
 */
export async function recoverUpdate(paths: UpdatePaths): Promise<Recovery> {
  const journal = await readJournal(paths);
  if (journal && ownerAlive(journal)) return { outcome: 'running', journal };
  const lock = await takeRecoveryLock(paths);
  if (!lock) return { outcome: 'busy' };
  // No journal: the directory is being removed by a finished or undone update (the journal is
  // written before anything else, and the directory appears whole, so a live update always has one).
  if (!journal || journal.state === 'staging') {
    await rm(paths.dir, { recursive: true, force: true });
    return { outcome: 'undone' };
  }
  if (journal.state === 'done') {
    await rm(paths.dir, { recursive: true, force: true });
    return { outcome: 'cleaned' };
  }
  await switchToStaged(paths, journal);
  return { outcome: 'finished', version: journal.version };
}

/**
 * Two commands started at once after a crash must not both move the live package: the first
 * creates `recovering` with O_EXCL and its pid; a later one whose holder is dead takes it over.
 */
async function takeRecoveryLock(paths: UpdatePaths): Promise<boolean> {
  const lock = join(paths.dir, 'recovering');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lock, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // The directory went away under us: someone else finished; nothing left to recover.
      if (code === 'ENOENT') return false;
      if (code !== 'EEXIST') throw error;
      const holder = Number(await readFile(lock, 'utf8').catch(() => ''));
      if (holder && processAlive(holder)) return false;
      await rm(lock, { force: true });
    }
  }
  return false;
}
