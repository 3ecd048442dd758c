import { isAbsolute, relative, resolve } from 'node:path';

/**
 * A path from the config, resolved against the config's folder (the project). Returns undefined
 * when it leads outside the project: images are made from the project's own files only.
 */
export function insideProject(projectDir: string, path: string): string | undefined {
  const full = resolve(projectDir, path);
  const rel = relative(projectDir, full);
  if (rel === '') return full;
  return rel.startsWith('..') || isAbsolute(rel) ? undefined : full;
}
