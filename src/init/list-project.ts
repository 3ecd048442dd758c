import { type Dirent, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs';
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
export const MAX_FILES = 20_000;
// Above a Dockerfile or compose file of any size seen in the wild; the readers are linear anyway.
const MAX_READ = 2 * 1024 * 1024;

/** Where the listing stopped when it reached its budget of files. */
export interface ListingStop {
  files: number;
  /** The folder it was reading. */
  at: string;
  /** Folders it did not get to (the first few), and how many in all. */
  unread: string[];
  unreadCount: number;
}

export interface ProjectListing extends ProjectFiles {
  stopped?: ListingStop;
}

/**
 * The project's files as `release init` looks at them: a listing, and contents read on demand.
 * Folders are read shallowest first (what a release is made of sits near the top), `first` (the
 * folders named with --look-in) before everything else, up to MAX_FILES files; where it stopped
 * is kept, for the warning. Symbolic links are neither listed nor followed, so nothing outside the
 * repository is read.
 */
export function listProject(root: string, first: readonly string[] = []): ProjectListing {
  const paths: string[] = [];
  const queue: { prefix: string; depth: number }[] = [
    ...first.map((prefix) => ({ prefix, depth: prefix.split('/').length })),
    { prefix: '', depth: 0 },
  ];
  const firsts = new Set(first);
  let stopped: ListingStop | undefined;
  for (let next = 0; next < queue.length && !stopped; next++) {
    const { prefix, depth } = queue[next]!;
    let entries: Dirent[];
    try {
      entries = readdirSync(prefix ? join(root, prefix) : root, { withFileTypes: true });
    } catch {
      continue; // unreadable folder: not ours to judge
    }
    // In name order: the same listing (and the same place to stop) on every file system.
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const folders: string[] = [];
    for (const entry of entries) {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (!SKIP.has(entry.name) && depth < MAX_DEPTH && !firsts.has(path)) folders.push(path);
      } else if (entry.isFile() && !stopped) {
        if (paths.length < MAX_FILES) paths.push(path);
        else stopped = { files: paths.length, at: prefix || '.', unread: [], unreadCount: 0 };
      }
    }
    if (!stopped) {
      queue.push(...folders.map((path) => ({ prefix: path, depth: depth + 1 })));
      continue;
    }
    const unread = [...queue.slice(next + 1).map((q) => q.prefix), ...folders];
    stopped.unread = unread.slice(0, 5);
    stopped.unreadCount = unread.length;
  }
  const known = new Set(paths);
  for (const path of paths)
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) known.add(path.slice(0, i));
  return {
    paths,
    ...(stopped ? { stopped } : {}),
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

/**
 * A folder named with --look-in, as a listing prefix: inside the project, reached without a
 * symbolic link, a folder. Otherwise why not.
 */
export function lookInFolder(root: string, folder: string): { prefix: string } | { refused: string } {
  const parts = folder.split('/').filter((p) => p !== '' && p !== '.');
  if (folder.startsWith('/') || parts.includes('..') || parts.length === 0)
    return { refused: 'name a folder inside the project, relative to it' };
  for (let i = 1; i <= parts.length; i++) {
    try {
      const stat = lstatSync(join(root, ...parts.slice(0, i)));
      if (stat.isSymbolicLink()) return { refused: 'it goes through a symbolic link' };
      if (!stat.isDirectory()) return { refused: 'it is not a folder' };
    } catch {
      return { refused: 'it does not exist' };
    }
  }
  return { prefix: parts.join('/') };
}
