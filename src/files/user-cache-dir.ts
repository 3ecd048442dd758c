import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/** Names a folder of its own for the toolkit's machine-wide cache (tests, CI caches). */
export const CACHE_DIR_ENV = 'RELEASE_CACHE_DIR';
/** Set to anything but `0` or `false`: nothing is read from or written to the cache. */
export const NO_CACHE_ENV = 'RELEASE_NO_CACHE';

/**
 * The toolkit's machine-wide cache (what depends on this machine, not on a project: the base image
 * made from this machine's node): `$RELEASE_CACHE_DIR`, else `$XDG_CACHE_HOME/service-release`,
 * else `~/.cache/service-release`, as the XDG base directory rules place a user's caches.
 * Undefined when `RELEASE_NO_CACHE` turns it off, or there is no home to put it in.
 */
export function userCacheDir(env: Record<string, string | undefined>): string | undefined {
  const off = env[NO_CACHE_ENV]?.trim().toLowerCase();
  if (off && off !== '0' && off !== 'false') return undefined;
  const own = env[CACHE_DIR_ENV];
  if (own) return resolve(own);
  // XDG: a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg && isAbsolute(xdg)) return join(xdg, 'service-release');
  let home: string;
  try {
    home = env['HOME'] || homedir();
  } catch {
    return undefined;
  }
  return home && isAbsolute(home) ? join(home, '.cache', 'service-release') : undefined;
}
