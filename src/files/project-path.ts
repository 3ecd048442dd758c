import { lstatSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { UsageError } from '../errors.ts';
import { printable } from '../text/printable.ts';

/**
 * A path from the config or a flag, resolved against `base` (the config's folder by default) and
 * held inside the project: returns undefined when it leads outside, by `..`, by an absolute path,
 * or through a symbolic link. Links are followed as the file system will follow them when the
 * path is written: the deepest part of the path that exists is resolved to its real path, and
 * that must be inside the project's real path too (a dangling link on the way is outside: where
 * it points is not known). The path returned is the one given, resolved, not the real one, so
 * that messages show what the user wrote.
 */
export function insideProject(
  projectDir: string,
  path: string,
  base: string = projectDir,
): string | undefined {
  const full = resolve(base, path);
  if (!within(resolve(projectDir), full)) return undefined;
  const project = realOf(resolve(projectDir)) ?? resolve(projectDir);
  const real = realOf(full);
  return real !== undefined && within(project, real) ? full : undefined;
}

/**
 * `insideProject`, or a usage error (exit 2) naming the setting or flag (`deploy.manifests[0]`,
 * `--manifests`) that leads outside.
 */
export function projectPath(
  projectDir: string,
  path: string,
  options: { setting: string; base?: string; code?: string },
): string {
  const full = insideProject(projectDir, path, options.base);
  if (full !== undefined) return full;
  throw new UsageError(
    options.code ?? 'PATH_OUTSIDE_PROJECT',
    `${options.setting}: "${printable(path)}" is outside the project (${printable(projectDir)})`,
    {
      hint: `give a path inside the project (no "..", no absolute path elsewhere, no symbolic link leading out)`,
    },
  );
}

/** `path` names `dir` or something under it (plain path arithmetic, nothing read). */
export function within(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return (
    rel === '' || (rel !== '..' && !rel.startsWith(`..${'/'}`) && !rel.startsWith('..\\') && !isAbsolute(rel))
  );
}

/**
 * The real path `path` would have: the real path of its deepest existing ancestor, with the rest
 * appended. Undefined when a part of it is a link that cannot be resolved (dangling, a loop).
 */
function realOf(path: string): string | undefined {
  const rest: string[] = [];
  let at = path;
  for (;;) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch {
      if (exists(at)) return undefined; // there, but not resolvable: a dangling or looping link
      const parent = dirname(at);
      if (parent === at) return undefined;
      rest.push(basename(at));
      at = parent;
    }
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
