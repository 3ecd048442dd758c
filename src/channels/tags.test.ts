import { describe, expect, it } from 'vitest';
import { buildTag, channelTags, commitTag, namesVersion, tagKind } from './tags.ts';

describe('channel tags', () => {
  it('gives each channel its tags: dev and the commit, the rc, the release and latest', () => {
    const commit = '0123456789abcdef0123456789abcdef01234567';
    expect(channelTags('dev', 'v1.2.0-3-g0123456', commit)).toEqual(['dev', 'sha-0123456789ab']);
    expect(channelTags('dev', 'v1.2.0-3-g0123456', undefined)).toEqual(['dev']);
    expect(channelTags('rc', 'v1.2.0-rc.1', commit)).toEqual(['v1.2.0-rc.1']);
    expect(channelTags('release', 'v1.2.0', commit)).toEqual(['v1.2.0', 'latest']);
    expect(commitTag(commit)).toBe('sha-0123456789ab');
  });

  it('knows the kind of every tag: floating, commit, or a version (release or rc)', () => {
    expect(tagKind('latest')).toBe('floating');
    expect(tagKind('dev')).toBe('floating');
    expect(tagKind('sha-0123456789ab')).toBe('commit');
    expect(tagKind('v1.0.0')).toBe('version');
    expect(tagKind('v1.0.0-rc.2')).toBe('version');
    expect(tagKind('sha-not-hex')).toBe('version');
    expect(tagKind('build-0123456789ab')).toBe('build');
  });

  it('gives a build a tag of its commit that no channel uses', () => {
    const commit = '0123456789abcdef0123456789abcdef01234567';
    expect(buildTag(commit, 'ffffffffffffffff')).toBe('build-0123456789ab');
    expect(buildTag(null, 'fedcba9876543210')).toBe('build-fedcba9876543210'.slice(0, 18));
    expect(namesVersion(buildTag(commit, ''))).toBe(false);
    for (const channel of ['dev', 'rc', 'release'] as const)
      expect(channelTags(channel, 'v1.0.0', commit)).not.toContain(buildTag(commit, ''));
  });

  it('says a floating or commit tag names no version', () => {
    expect(namesVersion('latest')).toBe(false);
    expect(namesVersion('sha-0123456789ab')).toBe(false);
    expect(namesVersion('v1.0.0')).toBe(true);
  });
});
