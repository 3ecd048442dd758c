import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.ts';
import { ROOT } from './doc-pages.ts';

// docs/reference/exit-codes.md lists every code `release` exits with (src/errors.ts EXIT, the
// 130/143 of a stop by SIGINT/SIGTERM included) and no other. What each signal really exits with
// is held by test/steps/runner-stop.test.ts, test/promote/interrupt-*.test.ts and
// test/init/long-lines.test.ts.

describe('the exit-code page', () => {
  it('has one row per exit code of src/errors.ts, and none other', () => {
    const page = readFileSync(join(ROOT, 'docs', 'reference', 'exit-codes.md'), 'utf8');
    const rows = [...page.matchAll(/^\|\s*(\d+)\s*\|/gm)].map((m) => Number(m[1]));
    expect(rows).toEqual([...new Set(Object.values(EXIT))].sort((a, b) => a - b));
    expect(page).toMatch(/\| 130 +\| stopped by SIGINT/);
    expect(page).toMatch(/\| 143 +\| stopped by SIGTERM/);
  });
});
