import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, lstat, readFile, readlink, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ExternalError } from '../../../errors.ts';
import { sanitize } from '../sanitize.ts';
import { npmInstallGlobal } from './npm-install.ts';

export interface CheckedInstall {
  prefix: string;
  /** The archive whose bytes were checked, and their SHA-256. */
  file: string;
  sha256: string;
  /** The version the trial run printed. */
  version: string;
  /** A private directory for the backup of the installed CLI. */
  work: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Install exactly the checked archive and prove it: the file is hashed again just before npm
 * reads it (the bytes npm installs are the bytes that were checked), the installed CLI is backed
 * up first, and after npm the installed `svc --version` must print the checked version. If it
 * does not (npm unpacked something else, or the new svc does not start), the previous CLI is put
 * back and the error says so.
 */
export async function installChecked(install: CheckedInstall): Promise<void> {
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
  const packageDir = join(install.prefix, 'lib', 'node_modules', 'service-cli');
  const binLink = join(install.prefix, 'bin', 'svc');
  const backup = join(install.work, 'previous');
  const hadPackage = await exists(packageDir);
  if (hadPackage) await cp(packageDir, backup, { recursive: true, verbatimSymlinks: true });
  const oldLink = await readlink(binLink).catch(() => undefined);

  await npmInstallGlobal(install.prefix, install.file, install.env);

  const printed = await runVersion(binLink);
  if (printed === `svc ${install.version}\n` || printed === `svc ${install.version}`) return;

  await rm(packageDir, { recursive: true, force: true });
  if (hadPackage) await cp(backup, packageDir, { recursive: true, verbatimSymlinks: true });
  await rm(binLink, { force: true });
  if (oldLink) await symlink(oldLink, binLink);
  const previous = oldLink ? (await runVersion(binLink)).trim() : '';
  throw new ExternalError(
    'UPDATE_INSTALLED_BROKEN',
    `npm installed the archive, but the installed svc ${printed ? `printed ${JSON.stringify(sanitize(printed.trim(), 80))}` : 'did not run'} (the checked one printed "svc ${install.version}"); ${
      hadPackage
        ? `the previous CLI was put back${previous ? ` (${sanitize(previous, 80)})` : ''}`
        : 'it was removed'
    }`,
    {
      hint: 'the API serves an archive that does not install as it runs; report it to the API operators',
    },
  );
}

function runVersion(bin: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, '--version'], { timeout: 15_000 }, (_error, stdout) =>
      resolve(String(stdout)),
    );
  });
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}
