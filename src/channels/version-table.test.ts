import { describe, expect, it } from 'vitest';
import { compareVersionStrings, sameTag } from '../version/compare.ts';
import { imageTagOf } from '../version/image-tag.ts';
import type { VersionKind } from '../version/kinds.ts';
import { satisfiesMinimum } from '../version/minimum.ts';
import { parseVersion } from '../version/parse.ts';
import { channelOf } from './channel-of.ts';

type Row = [raw: string, kind: VersionKind, dirty: boolean, channel: 'dev' | 'rc' | 'release', tag: string];

// One row per input: what it is, whether it is dirty, its channel, its image tag (as written:
// a project's tags keep or lack their `v`, DESIGN.md "Channels and tags").
const PARSE_TABLE: Row[] = [
  ['v1.2.3', 'release', false, 'release', 'v1.2.3'],
  ['1.2.3', 'release', false, 'release', '1.2.3'],
  ['2026.7.0', 'release', false, 'release', '2026.7.0'],
  ['2026.7.0-rc.1', 'rc', false, 'rc', '2026.7.0-rc.1'],
  ['v0.0.0', 'release', false, 'release', 'v0.0.0'],
  ['v10.20.30', 'release', false, 'release', 'v10.20.30'],
  ['v1.2.3+build.5', 'release', false, 'release', 'v1.2.3+build.5'],
  ['v1.2.3-dirty', 'release', true, 'dev', 'v1.2.3-dirty'],
  ['v1.2.3-rc.1', 'rc', false, 'rc', 'v1.2.3-rc.1'],
  ['1.2.3-rc.1', 'rc', false, 'rc', '1.2.3-rc.1'],
  ['v1.2.3-rc.0', 'rc', false, 'rc', 'v1.2.3-rc.0'],
  ['v1.2.3-rc.12', 'rc', false, 'rc', 'v1.2.3-rc.12'],
  ['v1.2.3-rc.1-dirty', 'rc', true, 'dev', 'v1.2.3-rc.1-dirty'],
  ['v1.2.3-rc1', 'prerelease', false, 'dev', 'v1.2.3-rc1'],
  ['v1.2.3-rc.1.2', 'prerelease', false, 'dev', 'v1.2.3-rc.1.2'],
  ['v1.2.3-rc', 'prerelease', false, 'dev', 'v1.2.3-rc'],
  ['v1.2.3-beta.2', 'prerelease', false, 'dev', 'v1.2.3-beta.2'],
  ['1.2.3-alpha', 'prerelease', false, 'dev', '1.2.3-alpha'],
  ['v2.0.0-next.0', 'prerelease', false, 'dev', 'v2.0.0-next.0'],
  ['v1.2.3-rc.01', 'invalid', false, 'dev', 'v1.2.3-rc.01'],
  ['v1.4.0-3-gabc1234', 'describe', false, 'dev', 'v1.4.0-3-gabc1234'],
  ['1.4.0-3-gabc1234', 'describe', false, 'dev', '1.4.0-3-gabc1234'],
  ['v1.4.0-3-gabc1234-dirty', 'describe', true, 'dev', 'v1.4.0-3-gabc1234-dirty'],
  ['v1.4.0-rc.2-7-g0123456789ab', 'describe', false, 'dev', 'v1.4.0-rc.2-7-g0123456789ab'],
  ['v1.4.0-beta.1-1-gdeadbee', 'describe', false, 'dev', 'v1.4.0-beta.1-1-gdeadbee'],
  [`v1.4.0-120-g${'a'.repeat(40)}`, 'describe', false, 'dev', `v1.4.0-120-g${'a'.repeat(40)}`],
  ['v1.4.0-3-gabc12', 'prerelease', false, 'dev', 'v1.4.0-3-gabc12'],
  ['abc1234', 'hash', false, 'dev', 'abc1234'],
  ['abc1234-dirty', 'hash', true, 'dev', 'abc1234-dirty'],
  [
    '0123456789abcdef0123456789abcdef01234567',
    'hash',
    false,
    'dev',
    '0123456789abcdef0123456789abcdef01234567',
  ],
  ['1234567', 'hash', false, 'dev', '1234567'],
  ['abc123', 'invalid', false, 'dev', 'abc123'],
  [
    '0123456789abcdef0123456789abcdef012345678',
    'invalid',
    false,
    'dev',
    '0123456789abcdef0123456789abcdef012345678',
  ],
  ['ABC1234', 'invalid', false, 'dev', 'ABC1234'],
  ['unknown', 'unknown', false, 'dev', 'unknown'],
  ['Unknown', 'invalid', false, 'dev', 'Unknown'],
  ['', 'invalid', false, 'dev', ''],
  ['   ', 'invalid', false, 'dev', '   '],
  [' v1.2.3', 'invalid', false, 'dev', ' v1.2.3'],
  ['v1.2.3\n', 'invalid', false, 'dev', 'v1.2.3\n'],
  ['v1.2.3\u0007', 'invalid', false, 'dev', 'v1.2.3\u0007'],
  ['v1.2', 'invalid', false, 'dev', 'v1.2'],
  ['v1', 'invalid', false, 'dev', 'v1'],
  ['1.2.3.4', 'invalid', false, 'dev', '1.2.3.4'],
  ['V1.2.3', 'invalid', false, 'dev', 'V1.2.3'],
  ['vv1.2.3', 'invalid', false, 'dev', 'vv1.2.3'],
  ['01.2.3', 'invalid', false, 'dev', '01.2.3'],
  ['1.02.3', 'invalid', false, 'dev', '1.02.3'],
  ['1.2.03', 'invalid', false, 'dev', '1.2.03'],
  ['latest', 'invalid', false, 'dev', 'latest'],
  ['garbage!', 'invalid', false, 'dev', 'garbage!'],
  ['-dirty', 'invalid', false, 'dev', '-dirty'],
  ['<script>', 'invalid', false, 'dev', '<script>'],
  ['9007199254740993.0.0', 'release', false, 'release', '9007199254740993.0.0'],
  ['v1.2.99999999999999999999', 'release', false, 'release', 'v1.2.99999999999999999999'],
];

describe('parseVersion', () => {
  it.each(PARSE_TABLE)('%j is %s (dirty %s), channel %s, tag %j', (raw, kind, dirty, channel, tag) => {
    const version = parseVersion(raw);
    expect(version.kind).toBe(kind);
    expect(version.dirty).toBe(dirty);
    expect(channelOf(version)).toBe(channel);
    expect(imageTagOf(version)).toBe(tag);
  });

  it('reads the parts of a description', () => {
    const v = parseVersion('v1.4.0-rc.2-7-g0123456789ab-dirty');
    expect(v).toMatchObject({
      kind: 'describe',
      baseTag: 'v1.4.0-rc.2',
      distance: 7n,
      hash: '0123456789ab',
      dirty: true,
    });
  });

  it('keeps numbers past 2^53 exact', () => {
    const v = parseVersion('9007199254740993.0.0');
    expect(v.kind === 'release' && v.core.major).toBe(9007199254740993n);
  });
});

// [a, b, expected sign of compare(a, b)]
const ORDER_TABLE: [string, string, -1 | 0 | 1][] = [
  ['1.10.0', '1.9.0', 1],
  ['1.9.0', '1.10.0', -1],
  ['v1.2.3', '1.2.3', 0],
  ['v1.2.3-4-gabc1234', '1.2.3', 1],
  ['v1.2.3-4-gabc1234', '1.2.4', -1],
  ['v1.2.3-4-gabc1234', 'v1.2.3-5-gdef5678', -1],
  ['v1.2.3-10-gabc1234', 'v1.2.3-9-gdef5678', 1],
  ['v1.2.3-4-gabc1234', '1.2.4-rc.1', -1],
  ['v1.2.3-rc.1-2-gabc1234', 'v1.2.3-rc.1', 1],
  ['v1.2.3-rc.1-2-gabc1234', 'v1.2.3-rc.2', -1],
  ['v1.2.3-rc.1-2-gabc1234', 'v1.2.3', -1],
  ['1.2.3-rc.1', '1.2.3', -1],
  ['1.2.3-rc.2', '1.2.3-rc.10', -1],
  ['1.2.3-alpha', '1.2.3-beta', -1],
  ['1.2.3-alpha.1', '1.2.3-alpha', 1],
  ['1.2.3-1', '1.2.3-alpha', -1],
  ['v1.2.3-dirty', 'v1.2.3', 0],
  ['v1.2.3+build.9', 'v1.2.3+build.1', 0],
  ['9007199254740993.0.0', '9007199254740992.0.0', 1],
  ['1.0.99999999999999999999', '1.0.99999999999999999998', 1],
  ['2.0.0', '1.99.99', 1],
];

describe('compareVersionStrings (describe-aware ordering)', () => {
  it.each(ORDER_TABLE)('%s vs %s -> %i', (a, b, expected) => {
    expect(compareVersionStrings(a, b)).toBe(expected);
    expect(compareVersionStrings(b, a)).toBe(-expected || 0);
  });

  it('refuses to order versions without a core', () => {
    expect(() => compareVersionStrings('abc1234', '1.2.3')).toThrow(/hash/);
    expect(() => compareVersionStrings('unknown', '1.2.3')).toThrow(/unknown/);
  });
});

// [cli, min, verdict]
const MINIMUM_TABLE: [string, string, 'pass' | 'fail' | 'undetermined'][] = [
  ['v1.2.0', '1.2.0', 'pass'],
  ['1.2.0', '1.2.0', 'pass'],
  ['v1.3.0', '1.2.0', 'pass'],
  ['v1.10.0', '1.9.0', 'pass'],
  ['v1.9.0', '1.10.0', 'fail'],
  ['v1.1.9', '1.2.0', 'fail'],
  ['v0.1.0', '1.0.0', 'fail'],
  ['v1.2.0-rc.1', '1.2.0', 'pass'],
  ['v1.2.0-beta.3', '1.2.0', 'pass'],
  ['v1.1.0-rc.9', '1.2.0', 'fail'],
  ['v1.2.0-3-gabc1234', '1.2.0', 'pass'],
  ['v1.1.9-30-gabc1234-dirty', '1.2.0', 'fail'],
  ['v1.2.0-dirty', '1.2.0', 'pass'],
  ['abc1234', '1.2.0', 'undetermined'],
  ['unknown', '1.2.0', 'undetermined'],
  ['garbage', '1.2.0', 'undetermined'],
  ['', '1.2.0', 'undetermined'],
  ['v1.2.0', 'v1.2.0', 'undetermined'],
  ['v1.2.0', '1.2', 'undetermined'],
  ['v1.2.0', '1.2.0-rc.1', 'undetermined'],
  ['v1.2.0', '', 'undetermined'],
  ['v1.2.0', ' 1.2.0', 'undetermined'],
  ['9007199254740993.0.0', '9007199254740992.0.0', 'pass'],
  ['9007199254740992.0.0', '9007199254740993.0.0', 'fail'],
];

describe('satisfiesMinimum', () => {
  it.each(MINIMUM_TABLE)('cli %j, min %j -> %s', (cli, min, verdict) => {
    const result = satisfiesMinimum(cli, min);
    expect(result.verdict).toBe(verdict);
    expect(result.reason.length).toBeGreaterThan(0);
  });

  it('treats a non-string minimum as undetermined rather than throwing', () => {
    expect(satisfiesMinimum('v1.0.0', 42 as unknown as string).verdict).toBe('undetermined');
  });
});

const SAME_TAG: [string, string, boolean][] = [
  ['v1.2.3', '1.2.3', true],
  ['1.2.3', 'v1.2.3', true],
  ['v1.2.3', 'v1.2.3', true],
  ['v1.2.3', 'v1.2.4', false],
  ['v1.2.3-dirty', 'v1.2.3-dirty', false],
  ['v1.2.3-rc.1', '1.2.3-rc.1', true],
  ['v1.2.3', 'V1.2.3', false],
  ['abc1234', 'abc1234', true],
  ['unknown', 'unknown', true],
];

describe('sameTag', () => {
  it.each(SAME_TAG)('%s == %s is %s', (a, b, same) => {
    expect(sameTag(a, b)).toBe(same);
  });
});
