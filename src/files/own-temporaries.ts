import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { processAlive } from '../processes/process-alive.ts';

/**
 * A temporary file beside `path`, named after this process (`<path>.<pid>.<8 hex>.<kind>`) so that
 * a later run can tell one left by a killed process from one still being written.
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

/**
 * Remove the temporaries (`sibling`) of `paths` whose writer no longer runs: a write killed
 * between its temporary and its rename (SIGKILL, a lost machine) leaves one beside the file, and
 * the next run that reads or writes the file clears it. Only names made from these paths are
 * touched (a manifests folder holds other people's files, `Chart.lock` among them); a live
 * writer's are left alone. Returns the paths removed.
 */
export async function sweepOwnTemporaries(paths: string[]): Promise<string[]> {
  const byDir = new Map<string, Set<string>>();
  for (const path of paths) {
    const names = byDir.get(dirname(path)) ?? new Set<string>();
    names.add(basename(path));
    byDir.set(dirname(path), names);
  }
  const removed: string[] = [];
  for (const [dir, owned] of byDir) {
    const names = await readdir(dir).catch(() => [] as string[]);
    for (const name of names) {
      const pid = temporaryOwner(name);
      if (pid === undefined || pid === process.pid || processAlive(pid)) continue;
      if (!owned.has(name.replace(TEMPORARY, ''))) continue;
      await rm(join(dir, name), { force: true });
      removed.push(join(dir, name));
    }
  }
  return removed;
}
