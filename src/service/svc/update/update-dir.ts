import { hostname } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../../../processes/process-alive.ts';
import { PACKAGE_NAME, UPDATE_DIR_NAME } from './pending-update.ts';

/** The paths of one install's update, all derived from its `node_modules` folder. */
export interface UpdatePaths {
  nodeModules: string;
  /** The lock and state directory. */
  dir: string;
  journal: string;
  /** npm's prefix for the staged install: the new package lands in `<stage>/lib/node_modules/service-cli`. */
  stagePrefix: string;
  staged: string;
  /** The live package, as npm laid it out. */
  live: string;
  /** The previous live package, kept until the switch is done. */
  previous: string;
  /** `<prefix>/bin/svc`, the link on PATH. */
  binLink: string;
}

export function updatePaths(nodeModules: string): UpdatePaths {
  const dir = join(nodeModules, UPDATE_DIR_NAME);
  const stagePrefix = join(dir, 'stage');
  return {
    nodeModules,
    dir,
    journal: join(dir, 'journal.json'),
    stagePrefix,
    staged: join(stagePrefix, 'lib', 'node_modules', PACKAGE_NAME),
    live: join(nodeModules, PACKAGE_NAME),
    previous: join(dir, 'previous'),
    // npm's global layout: <prefix>/lib/node_modules and <prefix>/bin.
    binLink: join(nodeModules, '..', '..', 'bin', 'svc'),
  };
}

/**
 * What the journal says. `staging`: the new package is being installed and checked beside the
 * live one; nothing the user runs has changed, so an interrupted update is undone. `switching`:
 * the staged package is complete and checked, and the renames have started, so an interrupted
 * update is finished. `done`: the live package is the new one; only leftovers remain.
 */
export type UpdateState = 'staging' | 'switching' | 'done';

export interface Journal {
  pid: number;
  host: string;
  started: string;
  state: UpdateState;
  /** The version the staged package was checked to print (`switching` and `done`). */
  version?: string;
  /** The package's `bin.svc` path, relative to the package (`switching` and `done`). */
  bin?: string;
}

export function newJournal(): Journal {
  return { pid: process.pid, host: hostname(), started: new Date().toISOString(), state: 'staging' };
}

export function parseJournal(text: string): Journal | undefined {
  try {
    const j = JSON.parse(text) as Partial<Journal>;
    const states: UpdateState[] = ['staging', 'switching', 'done'];
    if (typeof j.pid !== 'number' || typeof j.host !== 'string' || !states.includes(j.state as UpdateState))
      return undefined;
    return j as Journal;
  } catch {
    return undefined;
  }
}

/** Whether the process that wrote a journal may still be running: it alone may touch its update. */
export function ownerAlive(journal: Journal): boolean {
  // Another host sharing this prefix: its pids mean nothing here. Trust it for a while, not forever.
  if (journal.host !== hostname()) return Date.now() - Date.parse(journal.started) < 10 * 60_000;
  if (journal.pid === process.pid) return true;
  return processAlive(journal.pid);
}
