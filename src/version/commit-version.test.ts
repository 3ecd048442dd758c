import { describe, expect, it } from 'vitest';
import {
  highestVersionTag,
  MAX_VERSION_LENGTH,
  shortenDescription,
  versionOfCommit,
} from './commit-version.ts';
import { parseVersion } from './parse.ts';

describe('highestVersionTag', () => {
  it.each([
    [['v1.0.0-rc.1', 'v1.0.0'], 'v1.0.0'],
    [['v1.0.0', 'v1.0.0-rc.1'], 'v1.0.0'],
    [['v1.0.0-rc.1', 'v1.0.0-rc.2'], 'v1.0.0-rc.2'],
    [['v1.0.0-rc.10', 'v1.0.0-rc.9'], 'v1.0.0-rc.10'],
    [['release/2024', 'v2.0.0-rc.1', 'deploy-prod'], 'v2.0.0-rc.1'],
    [['1.0.0', 'v1.0.0'], 'v1.0.0'],
    [['v1.0.0', '1.0.0'], 'v1.0.0'],
    [['v1.2.3.4', 'v1.2'], undefined],
    [['release/2024'], undefined],
    [[], undefined],
  ])('%j -> %s', (tags, expected) => {
    expect(highestVersionTag(tags)).toBe(expected);
  });
});

describe('versionOfCommit', () => {
  it.each([
    [
      'a release tag beside its rc on HEAD wins',
      { describe: 'v1.0.0-rc.1', atHead: ['v1.0.0', 'v1.0.0-rc.1'] },
      'v1.0.0',
    ],
    ['-dirty is kept', { describe: 'v1.0.0-rc.1-dirty', atHead: ['v1.0.0-rc.1', 'v1.0.0'] }, 'v1.0.0-dirty'],
    [
      'a newer rc beside an older annotated one',
      { describe: 'v1.0.0-rc.1', atHead: ['v1.0.0-rc.1', 'v1.0.0-rc.2'] },
      'v1.0.0-rc.2',
    ],
    [
      'a description based on the highest tag of its base commit',
      { describe: 'v1.0.0-rc.1-3-gabcdef0', atHead: [], atBase: ['v1.0.0-rc.1', 'v1.0.0'] },
      'v1.0.0-3-gabcdef0',
    ],
    [
      'a description kept as git gave it',
      { describe: 'v1.0.0-3-gabcdef0-dirty', atHead: ['release/2024'] },
      'v1.0.0-3-gabcdef0-dirty',
    ],
    ['a bare hash', { describe: 'abcdef0', atHead: [] }, 'abcdef0'],
    ['git said nothing', { describe: null, atHead: [] }, null],
  ])('%s', (_, tags, expected) => {
    expect(versionOfCommit(tags)).toBe(expected);
  });

  it('shortens a description over the length limit to a valid dev version', () => {
    const long = `v1.0.0-${'a'.repeat(120)}`;
    const out = versionOfCommit({ describe: `${long}-3-gabcdef0-dirty`, atHead: [] })!;
    expect(out.length).toBeLessThanOrEqual(MAX_VERSION_LENGTH);
    expect(out).toMatch(/^v1\.0\.0-a+-3-gabcdef0-dirty$/);
    const parsed = parseVersion(out);
    expect(parsed).toMatchObject({ kind: 'describe', dirty: true, distance: 3n, hash: 'abcdef0' });
  });

  it.each([
    [
      `v2.1.0-${Array.from({ length: 40 }, (_, i) => `x${i}`).join('.')}`,
      /^v2\.1\.0-x0(\.x\d+)*-12-g0123456789ab$/,
    ],
    [`2.1.0-${'0'.repeat(3)}${'1'.repeat(130)}a`, /^2\.1\.0-12-g0123456789ab$/],
    [`v2.1.0-${'b'.repeat(200)}`, /^v2\.1\.0-b+-12-g0123456789ab$/],
  ])('shortens %s', (base, pattern) => {
    const out = shortenDescription(base, '-12-g0123456789ab');
    expect(out).toMatch(pattern);
    expect(out.length).toBeLessThanOrEqual(MAX_VERSION_LENGTH);
    expect(parseVersion(out).kind).toBe('describe');
  });

  it('leaves a description within the limit alone', () => {
    expect(shortenDescription('v1.0.0-rc.1', '-1-gabcdef0')).toBe('v1.0.0-rc.1-1-gabcdef0');
  });
});
