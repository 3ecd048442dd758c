import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printable, printableLines } from './printable.ts';

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

describe('printableLines', () => {
  const COMMANDS = [
    '::add-mask::x',
    '::warning::hi',
    '  ::set-env name=A::b',
    '::stop-commands::t',
    'x ##[error]y',
    '##vso[task.setvariable]z',
  ];

  it('no line may start a workflow command, and escapes are shown, not obeyed', () => {
    for (const command of COMMANDS) {
      const out = printableLines(`error: bad value "a\n${command}"\nhint: \u001b[31mred\u001b[0m`);
      for (const line of out.split('\n')) {
        expect(line.trimStart().startsWith('::'), line).toBe(false);
        expect(line, line).not.toMatch(/##(?:vso)?\[/);
      }
      expect(out).toContain('\\u001b[31mred');
      expect(out).not.toContain('\u001b');
    }
  });

  it('keeps ordinary text, tabs and newlines, and is idempotent', () => {
    expect(printableLines('a\tb\nc: d :: e')).toBe('a\tb\nc: d :: e');
    const once = printableLines('::x::y\n\u202e##[z');
    expect(printableLines(once)).toBe(once);
  });

  it('a JSON document escaped line by line still parses to the same value (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (value) => {
        const json = JSON.stringify({ value }, null, 2);
        expect(JSON.parse(printableLines(json))).toEqual({ value });
      }),
      { numRuns: 500, seed: 53 },
    );
  });

  it('names with any characters never yield a command line or a raw control (fast-check)', () => {
    const piece = fc.constantFrom(
      ':',
      '::',
      '#',
      '##[',
      '\n',
      '\r',
      '\u001b',
      '\u009b',
      '\u202e',
      ' ',
      '\u00a0',
      '\u3000',
      'add-mask',
      'x',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const out = printableLines(`wrote ${pieces.join('')}`);
        for (const line of out.split('\n')) {
          expect(line.trimStart().startsWith('::')).toBe(false);
          expect(line).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]|##\[/);
        }
      }),
      { numRuns: 500, seed: 53 },
    );
  });
});
