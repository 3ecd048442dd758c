import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, normalize } from 'node:path';
import { readPackageArchive } from '../../../archives/read-package-archive.ts';
import { ExternalError } from '../../../errors.ts';
import { sanitize } from '../sanitize.ts';

export interface CheckedArchive {
  /** The version the new svc prints for `--version`. */
  version: string;
  /** The npm package version in its package.json (semver; may differ from `version`). */
  packageVersion: string;
}

/**
 * Before npm touches the installed CLI, prove the downloaded archive is a working svc: it must be
 * the `service-cli` package with a `svc` bin, and that bin, unpacked into `scratch`, must run and
 * print `svc <version>`. A failure here means nothing was installed.
 */
export async function preflightArchive(file: string, scratch: string): Promise<CheckedArchive> {
  let entries: ReturnType<typeof readPackageArchive>;
  try {
    entries = readPackageArchive(await readFile(file));
  } catch (error) {
    throw bad(`it is ${(error as Error).message}`);
  }
  const manifestEntry = entries.find((entry) => entry.path === 'package.json');
  if (!manifestEntry) throw bad('it has no package.json');
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(manifestEntry.content.toString('utf8'));
  } catch {
    throw bad('its package.json is not JSON');
  }
  if (manifest['name'] !== 'service-cli')
    throw bad(`it is the package ${JSON.stringify(sanitize(String(manifest['name'])))}, not service-cli`);
  const refusal = packageJsonRefusal(manifest);
  if (refusal) throw bad(refusal);
  const binPath = (manifest['bin'] as Record<string, unknown>)['svc'];
  if (typeof binPath !== 'string') throw bad('its package.json has no "svc" bin');
  const wanted = normalize(binPath).replace(/^(\.\/)+/, '');
  const bin = entries.find((entry) => normalize(entry.path) === wanted);
  if (!bin || wanted.startsWith('..')) throw bad(`its bin ${sanitize(binPath)} is not in the archive`);

  await writeFile(join(scratch, 'package.json'), manifestEntry.content);
  await mkdir(dirname(join(scratch, wanted)), { recursive: true });
  await writeFile(join(scratch, wanted), bin.content);
  const printed = await new Promise<string>((resolve) => {
    execFile(process.execPath, [join(scratch, wanted), '--version'], { timeout: 15_000 }, (_error, stdout) =>
      resolve(String(stdout)),
    );
  });
  const match = /^svc (\S+)\n?$/.exec(printed);
  if (!match) throw bad(`its svc does not run (--version printed ${JSON.stringify(sanitize(printed, 80))})`);
  return { version: sanitize(match[1]!), packageVersion: sanitize(String(manifest['version'])) };
}

/**
 * What npm would put on the user's PATH or fetch beyond the checked bytes: only the one `svc`
 * command may be installed (an archive declaring `ls` or `git` would shadow the real ones), and
 * nothing may come from a registry (those bytes were never checked). Null when acceptable.
 */
export function packageJsonRefusal(manifest: Record<string, unknown>): string | undefined {
  const bin = manifest['bin'];
  if (typeof bin === 'string')
    return 'its package.json declares its bin as a string (a command named after the package), not "svc"';
  if (bin === null || typeof bin !== 'object' || Array.isArray(bin))
    return 'its package.json has no "svc" bin';
  const names = Object.keys(bin);
  const others = names.filter((name) => name !== 'svc');
  if (others.length)
    return `it would install commands other than svc: ${others.map((n) => JSON.stringify(sanitize(n, 40))).join(', ')}`;
  const directories = manifest['directories'] as Record<string, unknown> | undefined;
  if (directories && typeof directories === 'object' && 'bin' in directories)
    return 'its package.json sets directories.bin (every file there would become a command)';
  for (const field of [
    'dependencies',
    'optionalDependencies',
    'peerDependencies',
    'bundleDependencies',
    'bundledDependencies',
  ]) {
    const value = manifest[field];
    if (value && typeof value === 'object' && Object.keys(value).length)
      return `its package.json has ${field} (npm would install code that was not checked)`;
  }
  return undefined;
}

function bad(why: string): ExternalError {
  return new ExternalError('ARCHIVE_INVALID', `the downloaded archive is not a working svc: ${why}`, {
    hint: 'nothing was installed; the API serves a broken CLI archive (rebuild it with npm run build:cli)',
  });
}
