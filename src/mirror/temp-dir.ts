import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../processes/process-alive.ts';

const PREFIX = 'release-mirror-';
const OWNED = /^release-mirror-(\d+)-/;

/**
 * A temporary directory named after this process (`release-mirror-<pid>-XXXXXX`). An unpacked
 * archive can be large, and a killed run cannot remove its own: each new run first removes the
 * ones whose process is gone.
 */
export async function mirrorTempDir(): Promise<string> {
  const root = tmpdir();
  for (const name of await readdir(root).catch(() => [])) {
    const pid = Number(OWNED.exec(name)?.[1]);
    if (pid && pid !== process.pid && !processAlive(pid))
      await rm(join(root, name), { recursive: true, force: true });
  }
  return mkdtemp(join(root, `${PREFIX}${process.pid}-`));
}
