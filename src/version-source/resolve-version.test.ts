import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../../test/helpers/git-repo.ts';
import { resolveVersion } from './resolve-version.ts';

const cleanup: (() => void)[] = [];
afterAll(() => {
  for (const fn of cleanup) fn();
});

function repo(): GitRepo {
  const r = GitRepo.create();
  cleanup.push(() => r.remove());
  return r;
}

describe('resolveVersion', () => {
  it('prefers SERVICE_VERSION, trimmed, exactly as set (v kept or not)', async () => {
    const r = repo();
    r.commit();
    r.tag('v9.9.9');
    expect(await resolveVersion({ env: { SERVICE_VERSION: '  v2.0.0-rc.1\n' }, cwd: r.dir })).toEqual({
      version: 'v2.0.0-rc.1',
      source: 'env',
    });
    expect(await resolveVersion({ env: { SERVICE_VERSION: '2.0.0' }, cwd: r.dir })).toEqual({
      version: '2.0.0',
      source: 'env',
    });
  });

  it('falls back to git describe in the given tree when SERVICE_VERSION is empty or blank', async () => {
    const r = repo();
    r.commit();
    r.tag('v1.4.0');
    r.commit();
    const hash = r.git('rev-parse', '--short', 'HEAD');
    expect(await resolveVersion({ env: { SERVICE_VERSION: '   ' }, cwd: r.dir })).toEqual({
      version: `v1.4.0-1-g${hash}`,
      source: 'git',
    });
  });

  it('reports -dirty and a bare hash with no tag', async () => {
    const r = repo();
    r.commit();
    const hash = r.git('rev-parse', '--short', 'HEAD');
    r.makeDirty();
    expect(await resolveVersion({ env: {}, cwd: r.dir })).toEqual({
      version: `${hash}-dirty`,
      source: 'git',
    });
  });

  it('reads the artifact tree, not the caller working directory', async () => {
    const a = repo();
    a.commit();
    a.tag('v1.0.0');
    const b = repo();
    b.commit();
    b.tag('v2.0.0');
    // The test process runs somewhere else entirely; only `cwd` decides.
    expect((await resolveVersion({ env: {}, cwd: a.dir })).version).toBe('v1.0.0');
    expect((await resolveVersion({ env: {}, cwd: b.dir })).version).toBe('v2.0.0');
  });

  it('gives unknown outside any repository', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sr-norepo-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    expect(await resolveVersion({ env: {}, cwd: dir })).toEqual({ version: 'unknown', source: 'none' });
  });

  it('ignores GIT_DIR inherited from the caller', async () => {
    const a = repo();
    a.commit();
    a.tag('v1.0.0');
    const b = repo();
    b.commit();
    b.tag('v2.0.0');
    const saved = process.env['GIT_DIR'];
    process.env['GIT_DIR'] = join(b.dir, '.git');
    try {
      expect((await resolveVersion({ env: {}, cwd: a.dir })).version).toBe('v1.0.0');
    } finally {
      if (saved === undefined) delete process.env['GIT_DIR'];
      else process.env['GIT_DIR'] = saved;
    }
  });
});
