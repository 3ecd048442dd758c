/**
 * Paths as a compose file or a Dockerfile writes them, resolved inside the repository the way
 * Compose resolves them, or refused by name: init never rewrites a path that leaves the
 * repository into one that stays (`../../etc` is not `etc`). Pure.
 */
export type Resolved = { path: string } | { refused: string };

/** `path` (as written) relative to `base` (a repository path, `.` for the top), normalised. */
export function resolveInRepo(base: string, path: string): Resolved {
  if (path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path))
    return { refused: `${JSON.stringify(path)} is an absolute path, outside the repository` };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path) || path.startsWith('git@'))
    return { refused: `${JSON.stringify(path)} is a remote build context, not a folder of the repository` };
  const parts: string[] = [];
  for (const part of `${base}/${path}`.split(/[\\/]/)) {
    if (part === '' || part === '.') continue;
    if (part !== '..') parts.push(part);
    else if (parts.pop() === undefined) return { refused: `${JSON.stringify(path)} leaves the repository` };
  }
  return { path: parts.join('/') || '.' };
}

export function joinPath(dir: string, path: string): string {
  return dir === '.' || dir === '' ? path : `${dir}/${path}`;
}

export function dirOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '.' : path.slice(0, slash);
}
