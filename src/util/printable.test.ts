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
  ])('%j -> %j', (input, output) => {
    expect(printable(input)).toBe(output);
  });

  it('cuts long values', () => {
    expect(printable('x'.repeat(300), 10)).toBe(`${'x'.repeat(10)}…`);
  });
});
