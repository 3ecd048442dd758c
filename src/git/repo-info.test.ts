import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitRepo } from '../../test/helpers/git-repo.ts';
import { readRepoInfo, tagsOfDecoration } from './repo-info.ts';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('readRepoInfo', () => {
  it('reads commit, time, description and state of a real repository', async () => {
    const repo = GitRepo.create('repo-info-');
    cleanups.push(() => repo.remove());
    const head = repo.commit('one');
    repo.annotatedTag('v1.2.0');
    const info = await readRepoInfo(repo.dir);
    expect(info).toEqual({
      commit: head,
      commitTime: expect.any(Number),
      dirty: false,
      shallow: false,
      describe: 'v1.2.0',
    });
    repo.commit('two');
    expect((await readRepoInfo(repo.dir)).describe).toMatch(/^v1\.2\.0-1-g[0-9a-f]{7,}$/);
  });

  it('answers "no repository" outside one and before the first commit', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'repo-info-none-'));
    cleanups.push(() => rmSync(empty, { recursive: true, force: true }));
    const none = { commit: null, commitTime: null, dirty: false, shallow: false, describe: null };
    expect(await readRepoInfo(empty)).toEqual(none);
    const repo = GitRepo.create('repo-info-empty-');
    cleanups.push(() => repo.remove());
    expect(await readRepoInfo(repo.dir)).toEqual(none);
  });

  it('gives up at its deadline when git exits but something it started keeps its output open', async () => {
    // A `git` that exits at once and leaves a child holding stdout: 'close' never comes.
    const bin = mkdtempSync(join(tmpdir(), 'repo-info-git-'));
    const pidFile = join(bin, 'child.pid');
    writeFileSync(join(bin, 'git'), `#!/bin/sh\nsleep 60 &\necho $! >> ${pidFile}\nexit 0\n`);
    chmodSync(join(bin, 'git'), 0o755);
    const path = process.env['PATH'];
    process.env['PATH'] = `${bin}:${path}`;
    cleanups.push(() => {
      process.env['PATH'] = path;
      for (const pid of readFileSync(pidFile, 'utf8').trim().split('\n')) {
        try {
          process.kill(Number(pid));
        } catch {}
      }
      rmSync(bin, { recursive: true, force: true });
    });
    const info = await readRepoInfo(tmpdir(), 300);
    expect(info).toEqual({ commit: null, commitTime: null, dirty: false, shallow: false, describe: null });
  }, 10_000);

  it('takes the highest version tag on HEAD, annotated or not, from the one git log', async () => {
    const repo = GitRepo.create('repo-info-tags-');
    cleanups.push(() => repo.remove());
    repo.commit('one');
    repo.annotatedTag('v1.2.0-rc.1');
    repo.tag('v1.2.0');
    repo.tag('not-a-version');
    expect((await readRepoInfo(repo.dir)).describe).toBe('v1.2.0');
  });
});

describe('tagsOfDecoration', () => {
  it("reads the tag names of the log's decoration line, short or full", () => {
    expect(tagsOfDecoration('abc\n1700000000\ntag: v1.2.0, tag: v1.2.0-rc.1')).toEqual([
      'v1.2.0',
      'v1.2.0-rc.1',
    ]);
    expect(tagsOfDecoration('abc\n1700000000\ntag: refs/tags/v1,x, tag: refs/tags/v2')).toEqual([
      'v1,x',
      'v2',
    ]);
    expect(tagsOfDecoration('abc\n1700000000')).toEqual([]);
    expect(tagsOfDecoration(null)).toEqual([]);
  });
});
