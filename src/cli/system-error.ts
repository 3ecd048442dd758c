import { ExternalError, type ReleaseError, UsageError } from '../errors.ts';

/**
 * A file system error that reached the entry point is the user's environment, not a bug: a
 * directory where a file must go, a file where a directory must be (`dist` being a file, the
 * record's folder under a file, `--out` naming a file), a path that does not exist, no permission.
 * Say which path and what to do, in one line, with the usage exit code (a full disk: exit 3).
 */
export function systemErrorAsReleaseError(error: unknown): ReleaseError | undefined {
  const e = error as NodeJS.ErrnoException;
  if (!(e instanceof Error) || typeof e.code !== 'string' || typeof e.path !== 'string') return undefined;
  const path = e.path;
  const creating = e.syscall === 'mkdir';
  const known: Record<string, [string, string]> = {
    EEXIST: creating
      ? [`cannot create the directory ${path}: a file of that name is in the way`, `remove or rename ${path}`]
      : [`${path} already exists`, `remove ${path}, or choose another path`],
    ENOTDIR: [
      `${path}: a part of this path is a file, not a directory`,
      'remove or rename that file, or choose another path',
    ],
    EISDIR: [
      `${path} is a directory where a file was expected`,
      'choose a file path, or remove the directory',
    ],
    ENOENT: [`${path} does not exist`, 'check the path (relative paths start at --cwd or the config file)'],
    EACCES: [`permission denied: ${path}`, 'check the owner and permissions of the path'],
    EPERM: [`operation not permitted: ${path}`, 'check the owner and permissions of the path'],
    EROFS: [`${path} is on a read-only file system`, 'choose a writable path'],
  };
  const hint = `${known[e.code]?.[1] ?? 'check the path'} (${e.code} ${e.syscall ?? ''})`.replace(' )', ')');
  if (e.code === 'ENOSPC')
    return new ExternalError('NO_SPACE', `no space left on the device writing ${path}`, {
      hint: 'free some disk space, then run again',
      cause: error,
    });
  const entry = known[e.code];
  if (!entry) return undefined;
  return new UsageError('PATH_UNUSABLE', entry[0], { hint, cause: error });
}
