import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { compareVersions } from '../../version/compare.ts';
import { isOrdered } from '../../version/kinds.ts';
import { parseVersion } from '../../version/parse.ts';
import { sanitize } from './sanitize.ts';

export interface SvcOnPath {
  /** The path as found on PATH (`/usr/local/bin/svc`). */
  path: string;
  /** What it resolves to: two PATH entries naming one installation count once. */
  realPath: string;
  /** What `<path> --version` printed after `svc `, or undefined when it did not answer so. */
  version: string | undefined;
  error?: string;
}

/** Every executable `svc` on PATH, in search order, each asked for its `--version`. */
export async function findSvcOnPath(env: Record<string, string | undefined>): Promise<SvcOnPath[]> {
  const seen = new Set<string>();
  const found: { path: string; realPath: string }[] = [];
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    const path = join(dir, 'svc');
    try {
      if (!(await stat(path)).isFile()) continue;
      await access(path, constants.X_OK);
      const real = await realpath(path);
      if (seen.has(real)) continue;
      seen.add(real);
      found.push({ path, realPath: real });
    } catch {
      // not there, not executable, or a dangling link
    }
  }
  return Promise.all(found.map(async (entry) => ({ ...entry, ...(await askVersion(entry.path, env)) })));
}

/** Run `<path> --version`; a svc prints `svc <version>` on one line. */
export function askVersion(
  path: string,
  env: Record<string, string | undefined>,
  timeoutMs = 10_000,
): Promise<{ version: string | undefined; error?: string }> {
  return new Promise((resolve) => {
    execFile(path, ['--version'], { env, timeout: timeoutMs, maxBuffer: 64 * 1024 }, (error, stdout) => {
      const match = /^svc (\S+)\s*$/.exec(String(stdout));
      if (match) resolve({ version: sanitize(match[1]!) });
      else
        resolve({
          version: undefined,
          error: error ? sanitize(error.message.split('\n')[0]) : 'did not print "svc <version>"',
        });
    });
  });
}

/** Whether an earlier entry is older than a later one (versions that cannot be ordered are skipped). */
export function olderComesFirst(list: SvcOnPath[]): boolean {
  const first = list[0]?.version === undefined ? undefined : parseVersion(list[0].version);
  if (!first || !isOrdered(first)) return false;
  return list.slice(1).some((other) => {
    const v = other.version === undefined ? undefined : parseVersion(other.version);
    return v !== undefined && isOrdered(v) && compareVersions(v, first) > 0;
  });
}

/** One line per svc: `1. /usr/bin/svc  svc v1.2.0`. */
export function describeSvcs(list: SvcOnPath[], running?: string): string[] {
  return list.map(
    (entry, i) =>
      `${i + 1}. ${entry.path}  ${entry.version === undefined ? `(no version: ${entry.error})` : `svc ${entry.version}`}${
        running && entry.realPath === running ? '  (the one running now)' : ''
      }`,
  );
}
