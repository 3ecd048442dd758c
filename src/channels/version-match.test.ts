import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.ts';
import { checkRcIsBuild, checkReleaseFrom, findFromTag, nearestRcs, newerRcs } from './version-match.ts';

const exitOf = (fn: () => void): number | 'ok' => {
  try {
    fn();
    return 'ok';
  } catch (error) {
    return (error as { exitCode: number }).exitCode;
  }
};

describe('a release from an rc has its X.Y.Z', () => {
  it.each([
    ['v2.0.0-rc.9', 'v3.0.0', 2],
    ['v2.0.0-rc.9', 'v2.0.1', 2],
    ['v2.0.0-rc.9', 'v2.1.0', 2],
    ['v1.0.0-rc.1', 'v1.0.0', 'ok'],
    ['1.0.0-rc.1', 'v1.0.0', 'ok'],
    ['v1.0.0-rc.1', '1.0.0', 'ok'],
    ['v1.0.0', 'v1.0.0', 'ok'],
    ['v1.0.0', 'v1.0.1', 2],
    // Not a version: a digest is judged by what it is, not here.
    [`sha256:${'a'.repeat(64)}`, 'v9.0.0', 'ok'],
    // Not a release: the channel's own refusal names it.
    ['v1.0.0-rc.1', 'v2.0.0-rc.1', 'ok'],
  ])('--from %s --version %s -> %s', (from, version, expected) => {
    expect(exitOf(() => checkReleaseFrom(from, version))).toBe(expected);
  });

  it('names both versions and what to do', () => {
    expect(() => checkReleaseFrom('v2.0.0-rc.9', 'v3.0.0')).toThrow(
      expect.objectContaining({
        code: 'VERSION_MISMATCH',
        message: expect.stringMatching(/2\.0\.0, not 3\.0\.0/),
      }),
    );
  });
});

describe('a newer rc of the same version', () => {
  it.each([
    [
      'v1.0.0-rc.2',
      ['v1.0.0-rc.1', 'v1.0.0-rc.2', 'v1.0.0-rc.3', 'v1.0.0-rc.10', 'latest'],
      ['v1.0.0-rc.10', 'v1.0.0-rc.3'],
    ],
    ['v1.0.0-rc.3', ['v1.0.0-rc.1', 'v1.0.0-rc.3', 'v1.1.0-rc.9', 'v1.0.0'], []],
    ['1.0.0-rc.1', ['v1.0.0-rc.2'], ['v1.0.0-rc.2']],
    ['v1.0.0', ['v1.0.0-rc.2'], []],
    ['sha256:abc', ['v1.0.0-rc.2'], []],
  ])('--from %s among %j -> %j', (from, tags, expected) => {
    expect(newerRcs(from, tags)).toEqual(expected);
  });
});

describe('an rc promotion is the version its build baked in', () => {
  it.each([
    ['v1.0.0-rc.2', 'v1.0.0-rc.1', 2],
    ['v1.0.0-rc.1', 'v1.0.0-rc.1', 'ok'],
    ['1.0.0-rc.1', 'v1.0.0-rc.1', 'ok'],
    ['v1.0.1-rc.1', 'v1.0.0-rc.1', 2],
    ['v1.0.0-rc.1', 'v1.0.0-rc.1-dirty', 2],
  ])('--version %s over a build of %s -> %s', (version, built, expected) => {
    expect(exitOf(() => checkRcIsBuild(version, built))).toBe(expected);
  });
});

describe('--from in either spelling (findFromTag, nearestRcs)', () => {
  const calver = [
    '2026.6.0',
    '2026.6.1-rc.1',
    '2026.7.0-rc.1',
    '2026.7.0-rc.2',
    'latest',
    'dev',
    '2026.8.0-rc.1',
  ];

  it('names the tag that exists, and whether it was spelled otherwise', () => {
    expect(findFromTag('2026.7.0-rc.1', calver)).toEqual({ tag: '2026.7.0-rc.1', respelled: false });
    expect(findFromTag('v2026.7.0-rc.1', calver)).toEqual({ tag: '2026.7.0-rc.1', respelled: true });
    expect(findFromTag('1.4.0-rc.1', ['v1.4.0-rc.1'])).toEqual({ tag: 'v1.4.0-rc.1', respelled: true });
    expect(findFromTag('sha256:abc', [])).toEqual({ tag: 'sha256:abc', respelled: false });
  });

  it('a missing rc: the nearest that exist, its own X.Y.Z first', () => {
    expect(findFromTag('v2026.7.0-rc.3', calver)).toEqual({
      missing: true,
      nearest: ['2026.7.0-rc.2', '2026.7.0-rc.1', '2026.8.0-rc.1'],
    });
    expect(nearestRcs('2026.7.1-rc.1', calver)).toEqual(['2026.8.0-rc.1', '2026.7.0-rc.2', '2026.7.0-rc.1']);
    expect(nearestRcs('2026.7.0-rc.1', ['latest', 'v1.0.0'])).toEqual([]);
    expect(nearestRcs('9.9.9-rc.1', calver, 2)).toEqual(['2026.6.1-rc.1', '2026.7.0-rc.1']);
  });

  it('a release hint spelled as the rc is', () => {
    expect(() => checkReleaseFrom('2026.6.1-rc.1', '2026.7.0')).toThrow(UsageError);
    try {
      checkReleaseFrom('2026.6.1-rc.1', '2026.7.0');
    } catch (error) {
      expect((error as UsageError).hint).toContain('--version 2026.6.1)');
    }
  });
});
