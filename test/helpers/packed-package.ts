import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { acquireLock } from '../../src/files/file-lock.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface PackedPackage {
  /** The `npm pack` tarball. */
  tarball: string;
  /** The paths it holds, as `npm pack --json` lists them. */
  files: string[];
}

/**
 * This checkout as `npm pack` makes it (prepack's full build: JavaScript and declarations), made
 * once per test run and shared by the files that install it: packing costs half a minute of CPU.
 * The first caller packs under a lock in the run's folder; the others wait for it and reuse it.
 */
export async function packedPackage(): Promise<PackedPackage> {
  const dir = join(inject('runDir'), 'package');
  mkdirSync(dir, { recursive: true });
  const unlock = await acquireLock(join(dir, 'pack.lock'), {
    what: "this run's npm pack",
    waitMs: 600_000,
  });
  try {
    const record = join(dir, 'packed.json');
    if (existsSync(record)) return JSON.parse(readFileSync(record, 'utf8')) as PackedPackage;
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', dir], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 400_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    // prepack's build prints to stdout before npm's JSON document.
    const files = (
      JSON.parse(stdout.slice(stdout.indexOf('[\n'))) as { files: { path: string }[] }[]
    )[0]!.files.map((f) => f.path);
    const packed = { tarball: join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz'))!), files };
    writeFileSync(record, JSON.stringify(packed));
    return packed;
  } finally {
    await unlock();
  }
}
