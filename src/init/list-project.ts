import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ProjectFiles } from './detect.ts';

// Folders nobody writes a Dockerfile or a CLI into: dependencies, build output, caches.
const SKIP = new Set([
  '.git',
  'node_modules',
  'dist',
  'build',
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
const MAX_READ = 512 * 1024;

/** The project's files as `release init` looks at them: a listing, and contents read on demand. */
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
  return {
    paths,
    read(path) {
      try {
        const full = join(root, path);
        return statSync(full).size <= MAX_READ ? readFileSync(full, 'utf8') : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
