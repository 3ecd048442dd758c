import { describe, expect, it } from 'vitest';
import { versionLine } from './cli.ts';

// The first line a CLI's `--version` prints, in the shapes CLIs of several languages print it.
describe('versionLine', () => {
  it.each([
    ['svc 2026.7.0', 'svc', '2026.7.0'],
    ['acme version 2.45.0', 'acme', '2.45.0'],
    ['acme, version 1.24.0.post1', 'acme', '1.24.0.post1'], // Python's click
    ['acme 0.9.35rc628', 'acme', '0.9.35rc628'], // argparse's "%(prog)s %(version)s"
    ['1.4.0', 'acme', '1.4.0'],
    ['v1.4.0', 'acme', 'v1.4.0'],
  ])('%j -> %s', (line, program, version) => expect(versionLine(line, program)).toBe(version));

  it.each([
    ['hello there', 'acme'],
    ['other, version 1.0.0', 'acme'],
    ['acme, version', 'acme'],
    ['Usage: acme [OPTIONS]', 'acme'],
  ])('%j is no version line', (line, program) => expect(versionLine(line, program)).toBeUndefined());
});
