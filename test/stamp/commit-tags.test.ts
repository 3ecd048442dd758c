import { afterAll, describe, expect, it } from 'vitest';
import { readRepoInfo } from '../../src/git/repo-info.ts';
import { parseVersion } from '../../src/version/parse.ts';
import { resolveVersion } from '../../src/version-source/resolve-version.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// Which version a commit's tags mean, in real repositories: the highest version tag on the commit
// wins whatever its kind (annotated or lightweight), tags that are not versions never describe a
// commit, and a description too long for an image tag is shortened, not refused.

const cleanup: (() => void)[] = [];
afterAll(() => {
  for (const fn of cleanup) fn();
});

function repo(): GitRepo {
  const r = GitRepo.create('commit-tags-');
  cleanup.push(() => r.remove());
  return r;
}

async function stamp(r: GitRepo, env: Record<string, string> = {}) {
  const result = await runRelease(['stamp', '--json'], { cwd: r.dir, env });
  expect(result.code, result.stderr).toBe(0);
  return jsonOf<{ version: string; tag: string; channel: string; source: string }>(result);
}

describe('the version a commit means', () => {
  it.each([
    [
      'a lightweight v1.0.0 beside the annotated rc',
      (r: GitRepo) => r.annotatedTag('v1.0.0-rc.1').tag('v1.0.0'),
    ],
    ['both lightweight', (r: GitRepo) => r.tag('v1.0.0-rc.1').tag('v1.0.0')],
    ['both annotated', (r: GitRepo) => r.annotatedTag('v1.0.0').annotatedTag('v1.0.0-rc.1')],
    [
      'an annotated release beside a lightweight rc',
      (r: GitRepo) => r.tag('v1.0.0-rc.1').annotatedTag('v1.0.0'),
    ],
  ])('stamps v1.0.0 for the release channel: %s', async (_, tagIt) => {
    const r = repo();
    r.commit('one');
    tagIt(r);
    expect(await stamp(r)).toMatchObject({ version: 'v1.0.0', tag: 'v1.0.0', channel: 'release' });
    expect((await readRepoInfo(r.dir)).describe).toBe('v1.0.0');
  });

  it('takes the newer rc of two annotated ones on one commit', async () => {
    const r = repo();
    r.commit('one');
    r.annotatedTag('v1.0.0-rc.2').annotatedTag('v1.0.0-rc.1');
    expect(await stamp(r)).toMatchObject({ version: 'v1.0.0-rc.2', channel: 'rc' });
  });

  it('describes later commits from the highest tag of the tagged commit', async () => {
    const r = repo();
    r.commit('one');
    r.annotatedTag('v1.0.0-rc.1').tag('v1.0.0');
    r.commit('two');
    const short = r.git('rev-parse', '--short', 'HEAD');
    expect(await stamp(r)).toMatchObject({ version: `v1.0.0-1-g${short}`, channel: 'dev' });
  });

  it('ignores a stray tag that is not a version: dev stamps keep working', async () => {
    const r = repo();
    r.commit('one');
    r.tag('v1.2.0');
    r.commit('two');
    r.annotatedTag('release/2024');
    r.commit('three');
    const short = r.git('rev-parse', '--short', 'HEAD');
    expect(await stamp(r)).toMatchObject({ version: `v1.2.0-2-g${short}`, channel: 'dev' });
    // On the stray tag's own commit, and with no version tag at all: a description, then a hash.
    const bare = repo();
    bare.commit('one');
    bare.annotatedTag('release/2024');
    expect(await stamp(bare)).toMatchObject({ version: bare.git('rev-parse', '--short', 'HEAD') });
  });

  it('shortens a description longer than an image tag to a valid dev version', async () => {
    const r = repo();
    r.commit('one');
    const long = `v3.0.0-${'x'.repeat(110)}`;
    r.tag(long);
    r.commit('two');
    r.commit('three');
    const out = await stamp(r);
    expect(out.channel).toBe('dev');
    expect(out.version.length).toBeLessThanOrEqual(128);
    expect(out.version).toMatch(/^v3\.0\.0-x+-2-g[0-9a-f]{7,}$/);
    expect(parseVersion(out.version)).toMatchObject({ kind: 'describe', distance: 2n });
  });

  it('still takes SERVICE_VERSION first', async () => {
    const r = repo();
    r.commit('one');
    r.annotatedTag('v1.0.0-rc.1').tag('v1.0.0');
    expect(await stamp(r, { SERVICE_VERSION: 'v1.0.0-rc.1' })).toMatchObject({
      version: 'v1.0.0-rc.1',
      source: 'env',
    });
    expect(await resolveVersion({ env: {}, cwd: r.dir })).toEqual({ version: 'v1.0.0', source: 'git' });
  });
});
