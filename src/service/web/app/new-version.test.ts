import { describe, expect, it } from 'vitest';
import { isNewVersion } from './new-version.ts';

describe('isNewVersion (the reload notice)', () => {
  it.each([
    ['v1.2.3-rc.1', 'v1.2.4', true],
    ['v1.2.3', 'v1.2.2', true], // another version, even an older one: the page no longer matches the API
    ['v1.2.3', 'v1.2.3-1-gabcdef0', true],
    ['v1.2.3-rc.1', 'v1.2.3-rc.1', false],
    ['v1.2.3-rc.1', '1.2.3-rc.1', false], // a leading v is not a difference
    ['1.2.3', 'v1.2.3', false],
    ['v1.2.3-1-gabcdef0-dirty', 'v1.2.3-1-gabcdef0-dirty', false], // the very same build
    ['unknown', 'v1.2.3', false],
    ['v1.2.3', 'unknown', false],
    ['v1.2.3', '', false],
    ['v1.2.3', 'v1.2.4\n', false],
    ['v1.2.3', `v${'9'.repeat(200)}`, false],
    ['v1.2.3', 124, false],
    ['v1.2.3', null, false],
    ['v1.2.3', undefined, false],
  ])('client %j, server %j: %j', (client, server, expected) => {
    expect(isNewVersion(client, server)).toBe(expected);
  });
});
