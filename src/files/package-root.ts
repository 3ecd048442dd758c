import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/**
 * The toolkit's own root directory (where its package.json is), whether it runs from src/ in a
 * checkout, from the compiled lib/ or installed under node_modules. Files the toolkit ships beside
 * its code (templates, the reference service's sources, bin/) are found from here, never from a
 * fixed number of `../` that moves whenever a module does.
 */
export function packageRoot(): string {
  if (cached) return cached;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'service-release'
    ) {
      cached = dir;
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(`service-release: no package.json of its own above ${import.meta.url}`);
    dir = parent;
  }
}

/** The toolkit's own version, from its package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
    .version;
}
