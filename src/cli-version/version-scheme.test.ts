import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { satisfiesMinimum } from '../version/minimum.ts';
import { fileVersion, isSchemeVersion, sameOwnVersion, satisfiesMinimumIn } from './version-scheme.ts';

describe('satisfiesMinimumIn: a CLI version against the API min_cli_version', () => {
  // [cli, min, pep440 verdict]
  it.each([
    ['1.24.0', '1.24.0', 'pass'],
    ['1.24.0.post1', '1.24.0', 'pass'],
    ['1.24.0rc1', '1.24.0', 'pass'], // an rc of the very version that raised the minimum
    ['1.24.0.dev0', '1.24.0', 'pass'],
    ['1.24', '1.24.0', 'pass'], // a missing segment is 0
    ['1.24.0+ubuntu1', '1.24.0', 'pass'], // a local label is ignored
    ['1.24.0.1', '1.24.0', 'pass'], // a fourth segment above
    ['4.4.0_dev5', '4.4.0', 'pass'], // an underscore spelling PEP 440 normalises
    ['0.9.35rc628', '0.9.35', 'pass'],
    ['v1.24.0', '1.24.0', 'pass'],
    ['1!0.1', '1.24.0', 'pass'], // an epoch above 0 is above every epoch-0 version
    ['1.23.9.post3', '1.24.0', 'fail'],
    ['1.23.99', '1.24.0', 'fail'],
    ['1.9.0', '1.10.0', 'fail'], // numeric, not text, order
    ['1.10.0', '1.9.0', 'pass'],
    ['0', '0.0.1', 'fail'],
    ['banana', '1.0.0', 'undetermined'],
    ['1.0.0-dev.2.gabc1234', '1.0.0', 'undetermined'], // a semver dev build is no PEP 440 version
    ['1.24.0', '1.24', 'undetermined'], // the minimum must be X.Y.Z
  ] as const)('%s against %s is %s as PEP 440', (cli, min, verdict) => {
    expect(satisfiesMinimumIn('pep440', cli, min).verdict).toBe(verdict);
  });

  it('catches what semver cannot order: a post-release below the minimum', () => {
    expect(satisfiesMinimum('1.23.9.post3', '1.24.0').verdict).not.toBe('fail');
    expect(satisfiesMinimumIn('pep440', '1.23.9.post3', '1.24.0').verdict).toBe('fail');
  });

  it('semver is the existing rule, unchanged', () => {
    for (const [cli, min] of [
      ['0.31.3', '0.30.0'],
      ['0.29.9', '0.30.0'],
      ['0.30.0-rc.1', '0.30.0'],
      ['latest', '0.30.0'],
    ])
      expect(satisfiesMinimumIn('semver', cli!, min!)).toEqual(satisfiesMinimum(cli!, min!));
  });

  const core = fc.tuple(fc.nat(300), fc.nat(300), fc.nat(300));
  const suffix = fc.constantFrom('', 'rc1', 'a2', 'b3', '.post1', '.dev4', 'rc1.post2.dev3', '+local.7');

  it('property: a plain X.Y.Z agrees with semver, and any suffix keeps the verdict of its release', () => {
    fc.assert(
      fc.property(core, core, suffix, ([a, b, c], [x, y, z], tail) => {
        const min = `${x}.${y}.${z}`;
        const plain = satisfiesMinimumIn('pep440', `${a}.${b}.${c}`, min).verdict;
        expect(plain).toBe(satisfiesMinimum(`${a}.${b}.${c}`, min).verdict);
        expect(satisfiesMinimumIn('pep440', `${a}.${b}.${c}${tail}`, min).verdict).toBe(plain);
      }),
      { seed: 440, numRuns: 500 },
    );
  });

  it('property: the verdict is monotonic in the release', () => {
    fc.assert(
      fc.property(core, core, core, (v, w, m) => {
        const text = (t: number[]) => t.join('.');
        const [lo, hi] = [v, w].sort((p, q) => p[0]! - q[0]! || p[1]! - q[1]! || p[2]! - q[2]!);
        const min = text(m);
        if (satisfiesMinimumIn('pep440', text(lo!), min).verdict === 'pass')
          expect(satisfiesMinimumIn('pep440', text(hi!), min).verdict).toBe('pass');
      }),
      { seed: 441, numRuns: 500 },
    );
  });
});

describe('isSchemeVersion and sameOwnVersion', () => {
  it.each([
    ['pep440', '1.24.0.dev0', true],
    ['pep440', '4.4.0_dev5', true],
    ['pep440', '1!2.0', true],
    ['pep440', '1.0.0-dev.2.gabc1234', false],
    ['pep440', 'latest', false],
    ['semver', '0.31.3', true],
    ['semver', 'v0.31.3-rc.1', true],
    ['semver', '1.24.0.dev0', false],
    ['semver', '1.2', false],
  ] as const)('%s: %s is %s', (scheme, version, ok) => expect(isSchemeVersion(scheme, version)).toBe(ok));

  it('compares as the scheme normalises', () => {
    expect(sameOwnVersion('pep440', '1.0rc1', '1.0.0-rc.1')).toBe(true);
    expect(sameOwnVersion('pep440', '4.4.0_dev5', '4.4.0.dev5')).toBe(true);
    expect(sameOwnVersion('pep440', '1.0.1', '1.0.0')).toBe(false);
    expect(sameOwnVersion('semver', 'v1.2.3', '1.2.3')).toBe(true);
    expect(sameOwnVersion('semver', '1.2.3', '1.2.4')).toBe(false);
  });
});

describe('fileVersion: the version in the built file names', () => {
  it.each([
    ['pep440', '4.5.6_dev01', '4.5.6.dev1'], // as setuptools names the sdist of a declared 4.5.6_dev01
    ['pep440', '1.0.0-rc.1', '1.0.0rc1'],
    ['pep440', '0.9.31rc1', '0.9.31rc1'],
    ['semver', 'v2.45.0', 'v2.45.0'],
  ] as const)('%s %s -> %s', (scheme, declared, named) => expect(fileVersion(scheme, declared)).toBe(named));
});
