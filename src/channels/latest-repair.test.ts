import { describe, expect, it } from 'vitest';
import { decideLatestRepairs, latestOutcome, latestTarget } from './latest-repair.ts';

const D = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;

describe('latestTarget', () => {
  it('is the highest stable version every artifact carries', () => {
    expect(
      latestTarget({
        api: ['v1.2.0', 'v1.3.0', 'latest', 'v1.4.0'],
        web: ['v1.2.0', 'v1.3.0', 'latest'],
        worker: ['v1.3.0', 'v1.2.0'],
      }),
    ).toEqual({ version: 'v1.3.0', tagOf: { api: 'v1.3.0', web: 'v1.3.0', worker: 'v1.3.0' } });
  });

  it('orders numerically and skips rcs, prereleases, dirty and other tags', () => {
    const tags = ['v1.10.0', 'v1.9.0', 'v2.0.0-rc.1', 'v3.0.0-dirty', 'sha-0123456789ab', 'dev', 'latest'];
    expect(latestTarget({ api: tags, web: tags })?.version).toBe('v1.10.0');
  });

  it('matches v-less tags and reports each artifact’s own spelling', () => {
    expect(latestTarget({ api: ['1.2.0'], web: ['v1.2.0'] })).toEqual({
      version: '1.2.0',
      tagOf: { api: '1.2.0', web: 'v1.2.0' },
    });
  });

  it('a CalVer history without v: the highest, spelled as written', () => {
    const calver = ['2026.6.0', '2026.7.0-rc.1', '2026.7.0', '2025.12.1', 'latest', 'dev'];
    expect(latestTarget({ api: calver, web: calver })).toEqual({
      version: '2026.7.0',
      tagOf: { api: '2026.7.0', web: '2026.7.0' },
    });
  });

  it('a history that dropped its v half-way orders both spellings as one line', () => {
    const mixed = ['v1.9.0', 'v2.0.0', '2.1.0', '2.0.1', 'latest'];
    expect(latestTarget({ api: mixed, web: mixed })).toEqual({
      version: '2.1.0',
      tagOf: { api: '2.1.0', web: '2.1.0' },
    });
    expect(latestTarget({ api: ['v2.2.0', '2.1.0'], web: ['2.2.0', '2.1.0'] })?.tagOf).toEqual({
      api: 'v2.2.0',
      web: '2.2.0',
    });
  });

  it('is null when no stable version is on every artifact', () => {
    expect(latestTarget({ api: ['v1.0.0'], web: ['v1.1.0'] })).toBeNull();
    expect(latestTarget({ api: [], web: [] })).toBeNull();
    expect(latestTarget({})).toBeNull();
  });
});

describe('decideLatestRepairs', () => {
  it('converged when every latest is at the target', () => {
    const o = { repository: 'r', latest: D(1), target: D(1) };
    expect(decideLatestRepairs({ api: o, web: { ...o, repository: 's' } })).toEqual({
      converged: true,
      repairs: [],
    });
  });

  it('repairs exactly the artifacts that differ, including a missing latest', () => {
    const decision = decideLatestRepairs({
      web: { repository: 'w', latest: D(2), target: D(3) },
      api: { repository: 'a', latest: D(1), target: D(1) },
      worker: { repository: 'k', latest: null, target: D(4) },
    });
    expect(decision.converged).toBe(false);
    expect(decision.repairs).toEqual([
      { artifact: 'web', repository: 'w', from: D(2), to: D(3) },
      { artifact: 'worker', repository: 'k', from: null, to: D(4) },
    ]);
  });

  it('is not converged when the target tag vanished, and writes nothing for it', () => {
    const decision = decideLatestRepairs({ api: { repository: 'a', latest: D(1), target: null } });
    expect(decision).toEqual({ converged: false, repairs: [] });
  });
});

describe('latestOutcome', () => {
  const tags = { api: ['v1.2.0', 'v1.3.0'], web: ['v1.2.0', 'v1.3.0'] };
  const at = (version: string) => ({ version, tagOf: { api: version, web: version } });

  it('current, superseded, incomplete, unsettled', () => {
    expect(latestOutcome('1.3.0', { converged: true, target: at('v1.3.0'), tagsByArtifact: tags })).toEqual({
      kind: 'current',
      version: '1.3.0',
    });
    expect(latestOutcome('v1.2.0', { converged: true, target: at('v1.3.0'), tagsByArtifact: tags })).toEqual({
      kind: 'superseded',
      version: 'v1.2.0',
      by: 'v1.3.0',
    });
    expect(
      latestOutcome('v1.4.0', {
        converged: true,
        target: at('v1.3.0'),
        tagsByArtifact: { ...tags, api: [...tags.api, 'v1.4.0'] },
      }),
    ).toEqual({ kind: 'incomplete', version: 'v1.4.0', latest: 'v1.3.0' });
    expect(latestOutcome('v1.3.0', { converged: false, target: at('v1.3.0'), tagsByArtifact: tags })).toEqual(
      {
        kind: 'unsettled',
        version: 'v1.3.0',
      },
    );
  });
});
