import { describe, expect, it } from 'vitest';
import type { Channel } from '../channels/channel-of.ts';
import { RuleError } from '../errors.ts';
import { compareVersionStrings } from '../version/compare.ts';
import { packageVersionOf } from '../version/package-version.ts';
import {
  type PackageInput,
  type PackagePlan,
  type PackageState,
  planPackage,
  type TarballDigest,
} from './package-plan.ts';

const A = { integrity: 'sha512-AAAA', shasum: 'aaaa' };
const B = { integrity: 'sha512-BBBB', shasum: 'bbbb' };

function state(versions: PackageState['versions'] = {}, distTags: Record<string, string> = {}): PackageState {
  return { name: 'service-cli', versions, distTags };
}
const plan = (channel: Channel, version: string, s: PackageState, tarball: TarballDigest = A) =>
  planPackage({ channel, version, tarball, state: s });
const moved = (p: PackagePlan) => Object.fromEntries(p.distTags.map((w) => [w.tag, w.to]));

describe('packageVersionOf', () => {
  it.each([
    ['v1.4.0', '1.4.0'],
    ['1.4.0-rc.2', '1.4.0-rc.2'],
    ['v1.4.0-3-gabc1234', '1.4.1-dev.3.gabc1234'],
    ['v1.4.0-3-gabc1234-dirty', '1.4.1-dev.3.gabc1234.dirty'],
    ['v2.0.0-rc.1-12-g0123456', '2.0.0-rc.1.dev.12.g0123456'],
    ['abcdef0', '0.0.0-dev.abcdef0'],
    ['unknown', '0.0.0-dev.unknown'],
  ])('%s -> %s', (version, npm) => expect(packageVersionOf(version)).toBe(npm));

  it('orders a dev build after its tag, after the build before it, and before the next version', () => {
    const order = [
      'v1.4.0',
      'v1.4.0-2-gfff0000',
      'v1.4.0-3-gabc1234',
      'v1.4.0-10-g0000000',
      'v1.4.1-rc.1',
      'v1.4.1-rc.1-1-gabc1234',
      'v1.4.1-rc.2',
      'v1.4.1',
    ].map(packageVersionOf);
    for (let i = 1; i < order.length; i++)
      expect(compareVersionStrings(order[i - 1]!, order[i]!), `${order[i - 1]} < ${order[i]}`).toBe(-1);
  });
});

describe('planPackage: the table of the channels', () => {
  const history = state(
    { '1.4.0': A, '1.5.0-rc.1': A, '2.0.0': A },
    { latest: '2.0.0', next: '1.5.0-rc.1', dev: '2.0.1-dev.1.gaaaaaaa' },
  );

  it('dev: a prerelease under dev, latest and next untouched', () => {
    const p = plan('dev', 'v2.0.0-3-gabc1234', history);
    expect(p).toMatchObject({ version: '2.0.1-dev.3.gabc1234', publish: true });
    expect(moved(p)).toEqual({ dev: '2.0.1-dev.3.gabc1234' });
    expect(p.kept.map((k) => k.tag).sort()).toEqual(['latest', 'next']);
  });

  it('rc: X.Y.Z-rc.N under next, latest untouched; never backwards', () => {
    expect(moved(plan('rc', 'v2.1.0-rc.1', history))).toEqual({ next: '2.1.0-rc.1' });
    const older = plan('rc', 'v1.4.1-rc.1', state({}, { next: '2.1.0-rc.1' }));
    expect(older.distTags).toEqual([]);
    expect(older.kept[0]!.reason).toMatch(/never moves backwards/);
  });

  it('release: latest for the highest stable; a backport gets its version only', () => {
    expect(moved(plan('release', 'v2.1.0', history))).toEqual({ latest: '2.1.0' });
    const backport = plan('release', 'v1.4.9', history);
    expect(backport).toMatchObject({ version: '1.4.9', publish: true, distTags: [] });
    expect(backport.kept.find((k) => k.tag === 'latest')!.reason).toMatch(/backport.*2\.0\.0/);
  });

  it('release: latest the registry gave a first dev build is moved to the first release', () => {
    const p = plan(
      'release',
      'v1.0.0',
      state({ '1.0.1-dev.1.gabc1234': A }, { latest: '1.0.1-dev.1.gabc1234' }),
    );
    expect(moved(p)).toEqual({ latest: '1.0.0' });
  });

  it('the same bytes again are a no-op; other bytes are refused before anything', () => {
    const again = plan('release', 'v2.0.0', history, A);
    expect(again).toMatchObject({ publish: false, distTags: [] });
    expect(() => plan('release', 'v2.0.0', history, B)).toThrow(RuleError);
    expect(() => plan('release', 'v2.0.0', history, B)).toThrow(/already published with other bytes/);
    expect(() => plan('release', 'v2.0.0', history, { integrity: undefined, shasum: undefined })).toThrow(
      /cannot be compared/,
    );
  });

  it('refuses what the channel does not take', () => {
    expect(() => plan('release', 'v2.0.0-rc.1', history)).toThrow(/CHANNEL|takes only/);
    expect(() =>
      planPackage({ channel: 'rc', version: 'v2.0.0-rc.1', dirty: true, tarball: A, state: history }),
    ).toThrow(/dirty/);
  });
});

// Seeded properties over random registries (mulberry32, same histories every run).
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick };
}

describe('planPackage: properties over 1500 random registries', () => {
  it('holds the invariants of the table', () => {
    const r = rng(0x16c11);
    const core = () => `${r.int(3)}.${r.int(3)}.${r.int(3)}`;
    const anyVersion = () =>
      r.pick([() => core(), () => `${core()}-rc.${r.int(3)}`, () => `${core()}-dev.${r.int(4)}.gabc1234`])();
    for (let run = 0; run < 1500; run++) {
      const versions: PackageState['versions'] = {};
      for (let i = r.int(6); i > 0; i--) versions[anyVersion()] = r.pick([A, B]);
      const names = Object.keys(versions);
      const distTags: Record<string, string> = {};
      for (const tag of ['latest', 'next', 'dev'])
        if (names.length && r.next() < 0.7) distTags[tag] = r.pick(names);
      const channel = r.pick<Channel>(['dev', 'rc', 'release']);
      const version =
        channel === 'release'
          ? `v${core()}`
          : channel === 'rc'
            ? `v${core()}-rc.${r.int(3)}`
            : `v${core()}-${r.int(4)}-gabc1234`;
      const input: PackageInput = {
        channel,
        version,
        tarball: r.pick([A, B]),
        state: { name: 'service-cli', versions, distTags },
      };
      const where = JSON.stringify(input);
      const npm = packageVersionOf(version);
      let p: PackagePlan;
      try {
        p = planPackage(input);
      } catch {
        // Refused only for a published version with other bytes.
        expect(versions[npm], where).toBeDefined();
        expect(versions[npm], where).not.toBe(input.tarball);
        continue;
      }
      expect(p.publish, where).toBe(versions[npm] === undefined);
      for (const w of p.distTags) {
        expect(w.to, where).toBe(npm);
        if (channel === 'dev') expect(w.tag, where).toBe('dev');
        if (channel === 'rc') expect(w.tag, where).toBe('next');
        if (channel === 'release') {
          expect(w.tag, where).toBe('latest');
          // latest never moves below a stable version published
          for (const v of names.filter((n) => !n.includes('-')))
            expect(compareVersionStrings(npm, v), where).toBeGreaterThanOrEqual(0);
        }
        if (w.tag === 'next' && w.from !== null)
          expect(compareVersionStrings(npm, w.from), where).toBeGreaterThanOrEqual(0);
      }
      // Carrying the plan out and planning again changes nothing: promotion converges.
      const after: PackageState = {
        name: 'service-cli',
        versions: { ...versions, [npm]: input.tarball },
        distTags: { ...distTags, ...Object.fromEntries(p.distTags.map((w) => [w.tag, w.to])) },
      };
      const again = planPackage({ ...input, state: after });
      expect(again.publish, where).toBe(false);
      expect(again.distTags, where).toEqual([]);
    }
  });
});
