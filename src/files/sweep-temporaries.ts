import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive } from '../processes/process-alive.ts';
import { removeAbandonedLock } from './file-lock.ts';
import { temporaryOwner } from './own-temporaries.ts';

/**
 * Remove the temporary files (`<name>.<pid>.<hex>.tmp|bak`, see `sibling`) that processes of this
 * host left in `dirs` when they were killed mid-write: their pid no longer runs. A live writer's
 * files are never touched. Lock files (`*.lock`, `file-lock.ts`) whose holder is gone go too, and
 * a `.takeover` guard older than a minute (it lives for a few milliseconds). Returns the paths
 * removed.
 */
export async function sweepDeadTemporaries(dirs: string[]): Promise<string[]> {
  const removed: string[] = [];
  const alive = new Map<number, boolean>();
  for (const dir of dirs) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const path = join(dir, name);
      const pid = temporaryOwner(name);
      let dead = false;
      if (pid !== undefined) {
        if (!alive.has(pid)) alive.set(pid, processAlive(pid));
        dead = !alive.get(pid);
      } else if (name.endsWith('.lock')) {
        if (await removeAbandonedLock(path)) removed.push(path);
        continue;
      } else if (name.endsWith('.takeover')) {
        dead = await stat(path).then(
          (s) => Date.now() - s.mtimeMs > 60_000,
          () => false,
        );
      }
      if (!dead) continue;
      await rm(path, { force: true });
      removed.push(path);
    }
  }
  return removed;
}
