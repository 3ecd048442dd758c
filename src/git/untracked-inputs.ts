import { execFile } from 'node:child_process';
import { gitEnv } from './repo-info.ts';

/**
 * The untracked files (not ignored by .gitignore) under the given inputs, relative to `dir`,
 * sorted; the toolkit's own outputs (`exclude`) never count. An input that holds no tracked file
 * at all is a build output (`dist/images/api/app`, written by the artifact's build command), not
 * source, and is left out: only source folders can carry a stray file into an image.
 * Empty outside a git work tree, or when git cannot answer.
 */
export async function untrackedInputs(
  dir: string,
  inputs: readonly string[],
  exclude: readonly string[],
): Promise<string[]> {
  if (inputs.length === 0) return [];
  const [untracked, tracked] = await Promise.all([
    lsFiles(dir, ['--others', '--exclude-standard', '--', ...inputs]),
    lsFiles(dir, ['--', ...inputs]),
  ]);
  if (!untracked || !tracked) return [];
  const sources = inputs.filter((input) => tracked.some((path) => isUnder(path, input)));
  return untracked
    .filter((path) => sources.some((input) => isUnder(path, input)))
    .filter((path) => !exclude.some((out) => isUnder(path, out)))
    .sort();
}

/** `git ls-files -z <args>` in `dir`: the paths, or undefined when git failed. */
function lsFiles(dir: string, args: string[]): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['ls-files', '-z', ...args],
      { cwd: dir, env: gitEnv(process.env), maxBuffer: 64 * 1024 * 1024, timeout: 30_000 },
      (error, stdout) => resolve(error ? undefined : String(stdout).split('\0').filter(Boolean)),
    );
  });
}

/** Whether `path` is `prefix` or lies under it (both relative and normalised; `.` is everything). */
function isUnder(path: string, prefix: string): boolean {
  return prefix === '.' || path === prefix || path.startsWith(`${prefix}/`);
}
