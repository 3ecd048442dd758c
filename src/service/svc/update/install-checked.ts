import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ExternalError, ReleaseError } from '../../../errors.ts';
import { sanitize } from '../sanitize.ts';
import { npmInstallGlobal } from './npm-install.ts';
import { switchToStaged, writeJournal } from './staged-switch.ts';
import { type UpdatePaths, updatePaths } from './update-dir.ts';
import { acquireUpdateLock } from './update-lock.ts';

export interface CheckedInstall {
  prefix: string;
  /** The archive whose bytes were checked, and their SHA-256. */
  file: string;
  sha256: string;
  /** The version the trial run printed. */
  version: string;
  env: NodeJS.ProcessEnv;
  /** How long to wait for another update of the same prefix. */
  lockWaitMs: number;
  /** Aborted by SIGINT/SIGTERM: stops npm while staging; a switch under way is finished first. */
  signal: AbortSignal;
}

/**
 * Install exactly the checked archive, so that a complete svc is on PATH at every instant:
 * 1. take the prefix's update lock (one update at a time; a dead one's leftovers are recovered);
 * 2. the file is hashed again just before npm reads it (npm installs the bytes that were checked);
 * 3. npm installs it into a staging prefix beside the live package (same file system), and the
 *    staged `svc --version` must print the checked version: the live install is untouched so far,
 *    and a kill here leaves only staged files, which the next svc removes;
 * 4. the journal says `switching`, and the staged package replaces the live one by renames
 *    (staged-switch.ts); a kill from here on is finished by the next svc.
 */
export async function installChecked(install: CheckedInstall): Promise<void> {
  const paths = updatePaths(join(install.prefix, 'lib', 'node_modules'));
  const journal = await acquireUpdateLock(paths, install.lockWaitMs);
  let switching = false;
  try {
    const again = createHash('sha256')
      .update(await readFile(install.file))
      .digest('hex');
    if (again !== install.sha256) {
      throw new ExternalError(
        'ARCHIVE_CHANGED',
        'the checked archive changed on disk before npm could install it',
        {
          hint: 'nothing was installed; run svc update again',
        },
      );
    }
    await npmInstallGlobal(paths.stagePrefix, install.file, install.env, install.signal);
    const bin = await stagedBin(paths);
    const printed = install.signal.aborted ? '' : await runVersion(join(paths.staged, bin));
    throwIfAborted(install.signal);
    if (printed.trim() !== `svc ${install.version}`) {
      throw new ExternalError(
        'UPDATE_INSTALLED_BROKEN',
        `npm installed the archive, but the installed svc ${printed ? `printed ${JSON.stringify(sanitize(printed.trim(), 80))}` : 'did not run'} (the checked one printed "svc ${install.version}"); nothing was changed: your svc is the one you had`,
        {
          hint: 'the API serves an archive that does not install as it runs; report it to the API operators',
        },
      );
    }
    const checked = { ...journal, state: 'switching' as const, version: install.version, bin };
    // From this write on, an interrupted update is finished, not undone: the staged package is
    // complete and checked.
    await writeJournal(paths, checked);
    switching = true;
    await switchToStaged(paths, checked);
  } catch (error) {
    if (!switching) await rm(paths.dir, { recursive: true, force: true });
    else if (error instanceof Error && !(error instanceof ReleaseError)) {
      throw new ExternalError(
        'UPDATE_SWITCH_FAILED',
        `the switch to the new svc stopped part-way: ${error.message}`,
        {
          hint: 'svc still runs (the old or the new one); the next svc command finishes the switch',
          cause: error,
        },
      );
    }
    throw install.signal.aborted && !switching ? new UpdateInterrupted(install.signal.reason) : error;
  }
}

/** Ctrl-C or SIGTERM stopped the update before it switched: the installed svc is the old one. */
export class UpdateInterrupted extends ReleaseError {
  readonly exitCode: number;
  constructor(signal: unknown) {
    const name = signal === 'SIGTERM' ? 'SIGTERM' : 'SIGINT';
    super(
      'UPDATE_INTERRUPTED',
      `svc update was interrupted (${name}) before it switched; your svc is the one you had`,
      {
        hint: 'run svc update again',
      },
    );
    this.exitCode = name === 'SIGTERM' ? 143 : 130;
  }
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new UpdateInterrupted(signal.reason);
}

/** The staged package's `svc` script (preflight already refused any other bin layout). */
async function stagedBin(paths: UpdatePaths): Promise<string> {
  const manifest = JSON.parse(await readFile(join(paths.staged, 'package.json'), 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.['svc'];
  return (bin ?? 'svc.js').replace(/^\.\//, '');
}

function runVersion(bin: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, '--version'], { timeout: 15_000 }, (_error, stdout) =>
      resolve(String(stdout)),
    );
  });
}
