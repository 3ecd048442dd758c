import { describe, expect, it } from 'vitest';
import { userCacheDir } from './user-cache-dir.ts';

describe('userCacheDir', () => {
  it.each([
    [{ HOME: '/home/a' }, '/home/a/.cache/service-release'],
    [{ HOME: '/home/a', XDG_CACHE_HOME: '/var/cache/a' }, '/var/cache/a/service-release'],
    // XDG: a relative XDG_CACHE_HOME is invalid, and ignored.
    [{ HOME: '/home/a', XDG_CACHE_HOME: 'cache' }, '/home/a/.cache/service-release'],
    [{ HOME: '/home/a', XDG_CACHE_HOME: '/x', RELEASE_CACHE_DIR: '/ci/cache' }, '/ci/cache'],
    [{ HOME: '/home/a', RELEASE_NO_CACHE: '1' }, undefined],
    [{ HOME: '/home/a', RELEASE_NO_CACHE: 'true', RELEASE_CACHE_DIR: '/ci/cache' }, undefined],
    [{ HOME: '/home/a', RELEASE_NO_CACHE: '0' }, '/home/a/.cache/service-release'],
    [{ HOME: '/home/a', RELEASE_NO_CACHE: 'false' }, '/home/a/.cache/service-release'],
  ])('%j -> %s', (env, expected) => {
    expect(userCacheDir(env)).toBe(expected);
  });
});
