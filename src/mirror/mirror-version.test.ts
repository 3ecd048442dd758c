import { describe, expect, it } from 'vitest';
import { mirrorVersionTag } from './mirror-version.ts';

describe('mirrorVersionTag', () => {
  it.each([
    ['v3.1.0', 'v3.1.0'],
    ['3.1.0', '3.1.0'],
    ['v3.1.0-rc.2', 'v3.1.0-rc.2'],
    ['3.1.0-rc.2', '3.1.0-rc.2'],
    ['2026.7.0', '2026.7.0'],
  ])('takes %s as %s', (raw, tag) => {
    expect(mirrorVersionTag(raw)).toBe(tag);
  });

  it.each([
    'latest',
    'dev',
    'v3.1.0-dirty',
    'v3.1.0-3-gabcdef1',
    'v3.1.0-beta.1',
    'abcdef1',
    'unknown',
    'v3.1.0 ',
    'v3.1.0\u001b[2J',
    '',
  ])('refuses %j with exit 2', (raw) => {
    expect(() => mirrorVersionTag(raw)).toThrow(
      expect.objectContaining({ code: 'MIRROR_VERSION_INVALID', exitCode: 2 }),
    );
  });

  it('prints a hostile value escaped', () => {
    expect(() => mirrorVersionTag('v1\u001b[31m')).toThrow(/v1\\u001b\[31m|v1\\x1b\[31m/);
  });
});
