import { describe, expect, it } from 'vitest';
import { parseSvcArgs } from './parse-args.ts';

describe('parseSvcArgs', () => {
  it('reads flags anywhere and keeps positionals in order', () => {
    expect(parseSvcArgs(['--url', 'http://a', 'config', 'set-url', 'http://b', '--json'])).toEqual({
      url: 'http://a',
      json: true,
      dryRun: false,
      help: false,
      skipSignature: false,
      positionals: ['config', 'set-url', 'http://b'],
    });
    expect(parseSvcArgs(['update', '--insecure-skip-signature']).skipSignature).toBe(true);
    expect(parseSvcArgs(['update', '--url=http://a', '--dry-run', '-h'])).toMatchObject({
      url: 'http://a',
      dryRun: true,
      help: true,
      positionals: ['update'],
    });
  });
  it('stops at --', () => {
    expect(parseSvcArgs(['config', '--', '--json']).positionals).toEqual(['config', '--json']);
  });
  it.each([['--url'], ['--url', '--json'], ['--url='], ['--bogus'], ['-x']])('refuses %j', (...args) => {
    expect(() => parseSvcArgs(args)).toThrow(/--url needs a value|unknown option/);
  });
});
