import { describe, expect, it } from 'vitest';
import { existingSpelling, imageTagOf, spellLike, tagSpellings } from './image-tag.ts';
import { parseVersion } from './parse.ts';

describe('imageTagOf: the tag as the project writes it', () => {
  it.each([
    ['v1.2.3', 'v1.2.3'],
    ['1.2.3', '1.2.3'],
    ['2026.7.0', '2026.7.0'],
    ['2026.7.0-rc.1', '2026.7.0-rc.1'],
    ['v2026.7.0-rc.1', 'v2026.7.0-rc.1'],
    ['2026.7.0-3-gabc1234', '2026.7.0-3-gabc1234'],
  ])('%s -> %s', (raw, tag) => expect(imageTagOf(parseVersion(raw))).toBe(tag));
});

describe('tagSpellings', () => {
  it.each([
    ['2026.7.0', ['2026.7.0', 'v2026.7.0']],
    ['v2026.7.0-rc.1', ['v2026.7.0-rc.1', '2026.7.0-rc.1']],
    ['1.4.0', ['1.4.0', 'v1.4.0']],
    ['latest', ['latest']],
    ['dev', ['dev']],
    ['sha-0123456789ab', ['sha-0123456789ab']],
    ['abc1234', ['abc1234']],
    ['vnext', ['vnext']],
  ])('%s -> %j', (tag, spellings) => expect(tagSpellings(tag)).toEqual(spellings));
});

describe('spellLike', () => {
  it.each([
    ['v2026.7.0', '2026.7.0-rc.1', '2026.7.0'],
    ['2026.7.0', 'v2026.7.0-rc.1', 'v2026.7.0'],
    ['v1.4.0', 'v1.4.0-rc.2', 'v1.4.0'],
    ['1.4.0', '1.4.0-rc.2', '1.4.0'],
    ['latest', 'v1.0.0', 'latest'],
    ['v1.0.0', 'sha256:abc', 'v1.0.0'],
  ])('%s like %s -> %s', (tag, example, out) => expect(spellLike(tag, example)).toBe(out));
});

describe('existingSpelling', () => {
  const calver = ['2026.6.0', '2026.7.0-rc.1', '2026.7.0-rc.2', 'latest', 'dev'];
  it('the one asked for when it exists', () =>
    expect(existingSpelling('2026.7.0-rc.1', calver)).toBe('2026.7.0-rc.1'));
  it('else the other spelling', () =>
    expect(existingSpelling('v2026.7.0-rc.1', calver)).toBe('2026.7.0-rc.1'));
  it('undefined when neither exists', () =>
    expect(existingSpelling('v2026.7.0-rc.3', calver)).toBeUndefined());
  it('a v project the other way round', () =>
    expect(existingSpelling('1.4.0', ['v1.4.0', 'v1.3.0'])).toBe('v1.4.0'));
  it('both present: the one asked for', () =>
    expect(existingSpelling('v1.4.0', ['1.4.0', 'v1.4.0'])).toBe('v1.4.0'));
  it('never a floating tag', () => expect(existingSpelling('latest', ['v1.0.0'])).toBeUndefined());
});
