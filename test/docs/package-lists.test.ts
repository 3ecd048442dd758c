import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './doc-pages.ts';

// The Debian packages the test suite starts, as .ci/run installs them, and as README.md and
// docs/getting-started.md name them: one list, so a reader of either page installs what CI does.

/** The `packages=(...)` array of .ci/run, minus git (both pages name it among the requirements). */
function ciPackages(): string[] {
  const script = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
  const list = /^packages=\(([^)]*)\)/m.exec(script)?.[1];
  expect(list, '.ci/run declares packages=(...)').toBeDefined();
  return list!
    .trim()
    .split(/\s+/)
    .filter((p) => p !== 'git');
}

/** The package list a page gives after "Debian's" (a code span, or words in a shell comment). */
function pagePackages(page: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8').replace(/\n\s*(#\s*)?/g, ' ');
  const list = /Debian's `?([a-z0-9. -]+?)`?\s*[,(]/.exec(text)?.[1];
  expect(list, `${page} names Debian's packages`).toBeDefined();
  return list!.trim().split(/\s+/);
}

describe('the system packages the tests use', () => {
  it('README.md and getting-started.md name exactly the packages .ci/run installs', () => {
    const ci = ciPackages();
    expect(ci).toContain('docker-registry');
    expect(pagePackages('README.md')).toEqual(ci);
    expect(pagePackages('docs/getting-started.md')).toEqual(ci);
  });
});
