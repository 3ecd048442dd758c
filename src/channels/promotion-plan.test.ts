import { describe, expect, it } from 'vitest';
import { RuleError } from '../errors.ts';
import { orderedWrites, planPromotion, tagsToResolve } from './promotion-plan.ts';

const D = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;
const repo = (tags: Record<string, string | null>, source = D(9)) => ({ repository: 'r', source, tags });

describe('planPromotion', () => {
  it('release: version tag, then latest when it is the highest stable version', () => {
    const plan = planPromotion({
      version: 'v1.3.0',
      channel: 'release',
      artifacts: { api: repo({ 'v1.2.0': D(1), latest: D(1) }), web: repo({ 'v1.2.0': D(2), latest: D(2) }) },
    });
    expect(plan.tag).toBe('v1.3.0');
    expect(orderedWrites(plan).map((w) => `${w.artifact}:${w.tag}:${w.from === null ? '-' : 'old'}`)).toEqual(
      ['api:v1.3.0:-', 'web:v1.3.0:-', 'api:latest:old', 'web:latest:old'],
    );
    expect(orderedWrites(plan)[2]!.reason).toMatch(/highest stable version present: moves from sha256:1111/);
  });

  it('a project without v (CalVer): tags as written, never a v added', () => {
    const history = { '2026.6.0': D(1), latest: D(1), '2026.7.0-rc.1': D(9) };
    const plan = planPromotion({
      version: '2026.7.0',
      channel: 'release',
      artifacts: { api: repo(history), web: repo({ ...history }) },
    });
    expect(plan.tag).toBe('2026.7.0');
    expect(orderedWrites(plan).map((w) => `${w.artifact}:${w.tag}`)).toEqual([
      'api:2026.7.0',
      'web:2026.7.0',
      'api:latest',
      'web:latest',
    ]);
    const rc = planPromotion({ version: '2026.8.0-rc.1', channel: 'rc', artifacts: { api: repo(history) } });
    expect(orderedWrites(rc).map((w) => w.tag)).toEqual(['2026.8.0-rc.1']);
  });

  it('the version already on the image in its other spelling is kept, not tagged twice', () => {
    const plan = planPromotion({
      version: '1.3.0',
      channel: 'release',
      artifacts: { api: repo({ 'v1.3.0': D(9), latest: D(9) }), web: repo({ 'v1.2.0': D(2) }) },
    });
    expect(orderedWrites(plan).map((w) => `${w.artifact}:${w.tag}`)).toEqual(['web:1.3.0', 'web:latest']);
    const api = plan.artifacts.find((a) => a.artifact === 'api')!;
    expect(api.kept.map((k) => `${k.tag}: ${k.reason}`)).toEqual([
      'v1.3.0: already at sha256:999999999999 as v1.3.0: the version is not tagged twice',
      'latest: already at sha256:999999999999: nothing to do',
    ]);
  });

  it('the other spelling on another image is refused as a moved version tag', () => {
    expect(() =>
      planPromotion({
        version: '2026.7.0',
        channel: 'release',
        artifacts: { api: repo({ 'v2026.7.0': D(1) }) },
      }),
    ).toThrow(/v2026\.7\.0 is sha256:1111/);
  });

  it('release backport: tags its version and says why latest stayed', () => {
    const plan = planPromotion({
      version: 'v1.4.9',
      channel: 'release',
      artifacts: { api: repo({ 'v2.0.0': D(2), latest: D(2), 'v1.4.8': D(1) }), web: repo({}) },
    });
    expect(orderedWrites(plan).map((w) => `${w.artifact}:${w.tag}`)).toEqual(['api:v1.4.9', 'web:v1.4.9']);
    const kept = plan.artifacts.flatMap((a) => a.kept);
    expect(kept.map((k) => k.reason)).toEqual([
      'latest stays at v2.0.0: v1.4.9 is a backport (v2.0.0 is the highest stable version present, in api)',
      'latest stays at v2.0.0: v1.4.9 is a backport (v2.0.0 is the highest stable version present, in api)',
    ]);
  });

  it('ignores prereleases and non-version tags when deciding latest', () => {
    const plan = planPromotion({
      version: 'v1.0.0',
      channel: 'release',
      artifacts: { api: repo({ 'v2.0.0-rc.1': D(1), nightly: D(1), 'v9.0.0-dirty': D(1), 'sha-abc': D(1) }) },
    });
    expect(plan.artifacts[0]!.writes.map((w) => w.tag)).toEqual(['v1.0.0', 'latest']);
  });

  it('re-promoting the same digest is a no-op', () => {
    const plan = planPromotion({
      version: 'v1.0.0',
      channel: 'release',
      artifacts: { api: repo({ 'v1.0.0': D(9), latest: D(9) }) },
    });
    expect(orderedWrites(plan)).toEqual([]);
    expect(plan.artifacts[0]!.kept.map((k) => k.reason)).toEqual([
      'already at sha256:999999999999: nothing to do',
      'already at sha256:999999999999: nothing to do',
    ]);
  });

  it('refuses to move a version tag, naming every offender, with a hint', () => {
    let error: unknown;
    try {
      planPromotion({
        version: 'v1.0.0',
        channel: 'release',
        artifacts: { api: repo({ 'v1.0.0': D(1) }), web: repo({ '1.0.0': D(2) }), worker: repo({}) },
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RuleError);
    const rule = error as RuleError;
    expect(rule.code).toBe('TAG_IMMUTABLE');
    expect(rule.message).toContain('r:v1.0.0 is sha256:111111111111, not sha256:999999999999');
    expect(rule.message).toContain('r:1.0.0 is sha256:222222222222');
    expect(rule.hint).toContain('--from v1.0.0');
  });

  it('rc: only the rc tag, never latest', () => {
    const plan = planPromotion({
      version: 'v1.2.0-rc.3',
      channel: 'rc',
      artifacts: { api: repo({ latest: D(1), 'v1.1.0': D(1) }) },
    });
    expect(orderedWrites(plan).map((w) => w.tag)).toEqual(['v1.2.0-rc.3']);
    expect(plan.artifacts[0]!.kept).toEqual([
      expect.objectContaining({ tag: 'latest', reason: 'the rc channel never moves latest' }),
    ]);
  });

  it('dev: dev and sha-<12 hex> only with a commit', () => {
    const commit = 'abcdef0123456789abcdef0123456789abcdef01';
    const withCommit = planPromotion({
      version: 'v1.2.0-4-gabcdef0-dirty',
      channel: 'dev',
      commit,
      artifacts: { api: repo({ dev: D(1), 'sha-abcdef012345': D(2) }) },
    });
    expect(orderedWrites(withCommit).map((w) => `${w.tag} ${w.kind}`)).toEqual([
      'sha-abcdef012345 commit',
      'dev floating',
    ]);
    expect(orderedWrites(withCommit)[0]!.reason).toMatch(/rebuilt from the same commit/);
    const without = planPromotion({ version: 'unknown', channel: 'dev', artifacts: { api: repo({}) } });
    expect(orderedWrites(without).map((w) => w.tag)).toEqual(['dev']);
    expect(without.notes[0]).toMatch(/no commit/);
  });

  it('refuses versions the channel does not take', () => {
    expect(() => planPromotion({ version: 'v1.2.0-rc.1', channel: 'release', artifacts: {} })).toThrow(
      /takes only vX.Y.Z/,
    );
    expect(() => planPromotion({ version: 'v1.2.0', channel: 'rc', artifacts: {} })).toThrow(RuleError);
    expect(() =>
      planPromotion({ version: 'v1.2.0', channel: 'release', dirty: true, artifacts: {} }),
    ).toThrow(/dirty/);
  });
});

describe('tagsToResolve', () => {
  it('names only the tags whose digests the plan reads', () => {
    const tags = ['latest', 'v1.0.0', '1.2.0', 'v1.2.0', 'dev', 'nightly'];
    expect(tagsToResolve({ version: '1.2.0', channel: 'release' }, tags)).toEqual([
      'latest',
      '1.2.0',
      'v1.2.0',
    ]);
    expect(tagsToResolve({ version: 'v1.2.0-rc.1', channel: 'rc' }, tags)).toEqual([]);
    expect(
      tagsToResolve({ version: 'x', channel: 'dev', commit: 'a'.repeat(40) }, [...tags, 'sha-aaaaaaaaaaaa']),
    ).toEqual(['dev', 'sha-aaaaaaaaaaaa']);
  });
});
