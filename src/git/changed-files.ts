import { execFile } from 'node:child_process';

/**
 * The tracked files that differ from HEAD (what makes `git describe --dirty` say `-dirty`), at
 * most `limit` of them: what a dirty stamp names so the user knows what to commit. One `git
 * status` process, only asked when the tree is dirty; an empty list when git cannot say.
 */
export function changedFiles(cwd: string, limit = 5): Promise<{ files: string[]; total: number }> {
  return new Promise((done) => {
    execFile(
      'git',
      ['status', '--porcelain=v1', '-z', '--untracked-files=no'],
      { cwd, timeout: 5_000, maxBuffer: 8 * 1024 * 1024, windowsHide: true },
      (error, stdout) => {
        if (error) return done({ files: [], total: 0 });
        // Entries are "XY path\0", a rename's "XY new\0old\0": keep the first path of each.
        const entries: string[] = [];
        const parts = stdout.split('\0');
        for (let i = 0; i < parts.length; i++) {
          const entry = parts[i]!;
          if (entry.length < 4) continue;
          entries.push(entry.slice(3));
          if (entry[0] === 'R' || entry[0] === 'C') i++;
        }
        done({ files: entries.slice(0, limit), total: entries.length });
      },
    );
  });
}
