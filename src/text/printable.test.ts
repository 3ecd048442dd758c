import { describe, expect, it } from 'vitest';
import { printable } from './printable.ts';

describe('printable', () => {
  it.each([
    ['v1.2.3', 'v1.2.3'],
    ['v1\u001b]0;owned\u0007', 'v1\\u001b]0;owned\\u0007'],
    ['a\u009bb', 'a\\u009bb'],
    ['safe\u202etxt.exe', 'safe\\u202etxt.exe'],
    ['tab\there', 'tab\\u0009here'],
    ['ünïcödé', 'ünïcödé'],
  ])('escapes %j -> %j', (input, output) => {
    expect(printable(input)).toBe(output);
  });

  it('strips C0, C1, DEL and bidi controls in strip mode', () => {
    expect(printable('a\u001b[31mb\u0007c\u009bd\u007fe\u202ef\r\ng', { mode: 'strip' })).toBe('a[31mbcdefg');
  });

  it('cuts long values and says how much was cut, in both modes', () => {
    expect(printable('x'.repeat(300), { max: 10 })).toBe(`${'x'.repeat(10)}… (290 more characters)`);
    expect(printable('x'.repeat(500), { mode: 'strip', max: 10 })).toBe(
      `${'x'.repeat(10)}… (490 more characters)`,
    );
  });

  it('cuts after escaping, so an escape cannot smuggle length past the cap', () => {
    expect(printable('\u0007'.repeat(100), { max: 12 })).toBe('\\u0007\\u0007… (588 more characters)');
  });

  it('prints non-strings as text', () => {
    expect(printable(42)).toBe('42');
  });
});
