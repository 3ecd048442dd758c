import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);

// The package ships the TypeScript of the reference service only (`release build` bundles it at
// run time) and of what it imports: lint's `service-ships-alone` rule says what that may be (the
// core and the leaf folders). The toolkit itself ships compiled (lib/). This holds the `files` of
// package.json to that rule, so a leaf folder added to lint is shipped, and nothing else is.
describe("the package's TypeScript sources", () => {
  const rule = (
    require(join(root, '.dependency-cruiser.cjs')) as {
      forbidden: { name: string; to: { pathNot: string[] } }[];
    }
  ).forbidden.find((r) => r.name === 'service-ships-alone')!;
  const imported = rule.to.pathNot.map((pattern) => new RegExp(pattern));
  const files = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] }).files;
  const shipped = files.filter((f) => f.startsWith('src/'));

  it('are the reference service and every folder lint lets it import, no more', () => {
    const entries = readdirSync(join(root, 'src'), { withFileTypes: true }).map((e) =>
      e.isDirectory() ? `src/${e.name}/` : `src/${e.name}`,
    );
    const needed = entries.filter((path) => imported.some((re) => re.test(path)));
    expect(needed).toContain('src/service/');
    expect(needed).toContain('src/version/');
    expect(shipped.map((f) => (f.endsWith('.ts') ? f : `${f}/`)).sort()).toEqual(needed.sort());
    expect(files).toContain('!src/**/*.test.ts');
  });
});
