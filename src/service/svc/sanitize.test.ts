import { describe, expect, it } from 'vitest';
import { sanitize, shown } from './sanitize.ts';

describe('sanitize', () => {
  it('removes C0, C1, DEL and bidi controls', () => {
    expect(sanitize('a\u001b[31mb\u0007c\u009bd\u007fe\u202ef\r\ng')).toBe('a[31mbcdefg');
  });
  it('caps the length and says how much was cut', () => {
    expect(sanitize('x'.repeat(500), 10)).toBe(`${'x'.repeat(10)}… (490 more characters)`);
  });
  it('describes non-strings by type', () => {
    expect(shown(null)).toBe('null');
    expect(shown(undefined)).toBe('missing');
    expect(shown([1])).toBe('an array');
    expect(shown('a\u0000')).toBe('"a"');
  });
});
