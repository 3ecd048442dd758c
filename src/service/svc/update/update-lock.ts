import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { ExternalError } from '../../../errors.ts';
import { recoverUpdate } from './recover-update.ts';
import { type Journal, newJournal, type UpdatePaths } from './update-dir.ts';

/** How long a second `svc update` waits for a running one before it refuses (exit 3). */
export function lockWaitMs(env: NodeJS.ProcessEnv): number {
  const given = Number(env['SVC_UPDATE_WAIT_MS']);
  return Number.isFinite(given) && given >= 0 ? given : 60_000;
}

/**
 * Take the update lock: the update directory itself, created under a private name with its
 * journal inside and renamed into place. rename(2) of a directory onto an existing non-empty one
 * fails, so exactly one process wins, and the directory never exists without its journal. A
 * loser waits while the owner is alive (two terminals), and finishes or undoes the update of an
 * owner that is gone before trying again.
 */
export async function acquireUpdateLock(paths: UpdatePaths, waitMs: number): Promise<Journal> {
  const deadline = Date.now() + waitMs;
  const journal = newJournal();
  for (;;) {
    const mine = `${paths.dir}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await mkdir(mine);
    try {
      await writeFile(`${mine}/journal.json`, `${JSON.stringify(journal)}\n`);
      await rename(mine, paths.dir);
      return journal;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    } finally {
      await rm(mine, { recursive: true, force: true });
    }
    const recovery = await recoverUpdate(paths);
    if (recovery.outcome !== 'running' && recovery.outcome !== 'busy') continue;
    if (Date.now() >= deadline) {
      const owner =
        recovery.outcome === 'running'
          ? ` (pid ${recovery.journal.pid}, since ${recovery.journal.started})`
          : '';
      throw new ExternalError(
        'UPDATE_IN_PROGRESS',
        `another svc update is installing into this prefix${owner}; waited ${Math.round(waitMs / 1000)} s`,
        { hint: 'let it finish, then run svc --version; run svc update again if you still need to' },
      );
    }
    await sleep(200);
  }
}
