import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ProjectFiles } from './detect.ts';

// Folders nobody writes a Dockerfile or a CLI into: dependencies, build output, caches. Not
// `build/`: Go's usual layout keeps its Dockerfiles in build/package/.
const SKIP = new Set([
  '.git',
  'node_modules',
  'dist',
  'lib',
  'out',
  'coverage',
  '.release',
  '.venv',
  'venv',
  '__pycache__',
  '.tox',
  '.cache',
  'target',
  'vendor',
]);
const MAX_DEPTH = 4;
const MAX_FILES = 20_000;
// Above a Dockerfile or compose file of any size seen in the wild; the readers are linear anyway.
const MAX_READ = 2 * 1024 * 1024;

/**
 * The project's files as `release init` looks at them: a listing, and contents read on demand.
 * Symbolic links are neither listed nor followed, so nothing outside the repository is read.
 */
export function listProject(root: string): ProjectFiles {
  const paths: string[] = [];
  const walk = (dir: string, prefix: string, depth: number): void => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // unreadable folder: not ours to judge
    }
    for (const entry of entries) {
      if (paths.length >= MAX_FILES) return;
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!SKIP.has(entry.name) && depth < MAX_DEPTH) walk(join(dir, entry.name), path, depth + 1);
      } else if (entry.isFile()) paths.push(path);
    }
  };
  walk(root, '', 0);
  const known = new Set(paths);
  for (const path of paths)
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) known.add(path.slice(0, i));
  return {
    paths,
    exists: (path) => {
      let end = path.length;
      while (end > 0 && path[end - 1] === '/') end--;
      return known.has(path.slice(0, end));
    },
    read(path) {
      // Only files of the listing: never a path that leaves the repository or goes through a link.
      if (!known.has(path)) return undefined;
      try {
        const full = join(root, path);
        return statSync(full).size <= MAX_READ ? readFileSync(full, 'utf8') : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
