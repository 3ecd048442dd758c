import { describe, expect, it } from 'vitest';
import { channelTags, commitTag, namesVersion, tagKind } from './tags.ts';

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
  });

  it('says a floating or commit tag names no version', () => {
    expect(namesVersion('latest')).toBe(false);
    expect(namesVersion('sha-0123456789ab')).toBe(false);
    expect(namesVersion('v1.0.0')).toBe(true);
  });
});
