import fc from 'fast-check';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { commandMatch, coreCommand, runsCommand } from './command-words.ts';

// A role's command, wrapped as real deployments wrap it (an init process, a shell's -c, an
// entrypoint script before it, its own flags after it), in list or string form, is still the
// role's command; and a command the line does not run is never found in it.
const RESERVED = new Set(['sh', 'bash', 'tini', 'dumb-init', 'exec', '--']);
const word = fc
  .stringMatching(/^[a-z0-9][a-z0-9._/:=@ '"$-]{0,11}$/)
  .filter((w) => !RESERVED.has(w.slice(w.lastIndexOf('/') + 1)) && w.trim() === w);
const command = fc.array(word, { minLength: 1, maxLength: 5 });

type Wrap = (argv: string[]) => string[];
const shell =
  (sh: string, flag = '-c'): Wrap =>
  (argv) => [sh, flag, quote(argv)];
const WRAPS: [string, Wrap][] = [
  ['sh -c', shell('sh')],
  ['/bin/sh -c', shell('/bin/sh')],
  ['bash -c', shell('bash')],
  ['/bin/bash -ec', shell('/bin/bash', '-ec')],
  ['exec in a shell', (argv) => ['sh', '-c', `exec ${quote(argv)}`]],
  ['a command before it', (argv) => ['sh', '-c', `cd /app && ${quote(argv)}`]],
  ['tini --', (argv) => ['tini', '--', ...argv]],
  ['/sbin/tini --', (argv) => ['/sbin/tini', '--', ...argv]],
  ['dumb-init', (argv) => ['dumb-init', ...argv]],
  ['dumb-init --', (argv) => ['dumb-init', '--', ...argv]],
  ['/usr/bin/dumb-init --', (argv) => ['/usr/bin/dumb-init', '--', ...argv]],
  ['an entrypoint script', (argv) => ['/docker-entrypoint.sh', ...argv]],
];
const wraps = fc.array(fc.constantFrom(...WRAPS), { maxLength: 3 });
const trailing = fc.array(fc.constantFrom('-l', 'info', '--concurrency=2'), { maxLength: 2 });

function wrapped(cmd: string[], chain: [string, Wrap][], after: string[]): string[] {
  return chain.reduce((argv, [, wrap]) => wrap(argv), [...cmd, ...after]);
}

describe('runsCommand, property', () => {
  it('finds a command however it is wrapped, in list or string form', () => {
    fc.assert(
      fc.property(command, wraps, trailing, fc.boolean(), (cmd, chain, after, asString) => {
        const argv = wrapped(cmd, chain, after);
        const line = asString ? quote(argv) : argv;
        expect(runsCommand(line, cmd)).toBe(true);
        expect(commandMatch(line, cmd)).toBe(cmd.length);
        // The role declared wrapped (its own tini, its own sh -c) is the same command.
        expect(runsCommand(line, wrapped(cmd, chain.slice(0, 1), []))).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('never finds a command the line does not run', () => {
    fc.assert(
      fc.property(command, word, wraps, fc.boolean(), (cmd, missing, chain, asString) => {
        fc.pre(!cmd.includes(missing));
        const argv = wrapped(cmd, chain, []);
        expect(runsCommand(asString ? quote(argv) : argv, [...cmd, missing])).toBe(false);
        expect(runsCommand(asString ? quote(argv) : argv, [missing])).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('reads the core of a singly wrapped command back', () => {
    fc.assert(
      fc.property(command, wraps, (cmd, chain) => {
        fc.pre(!chain.some(([name]) => name === 'a command before it' || name === 'an entrypoint script'));
        expect(coreCommand(wrapped(cmd, chain, []))).toEqual(cmd);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on any text', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200 }),
        fc.array(fc.string({ maxLength: 20 }), { maxLength: 4 }),
        (text, cmd) => {
          expect(typeof commandMatch(text, cmd)).toBe('number');
          expect(Array.isArray(coreCommand(text))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
