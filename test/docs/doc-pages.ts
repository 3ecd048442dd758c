import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, as the docs tests read it. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** README.md and every page under docs/: what an installed package or a fresh clone has. */
export function pages(): string[] {
  const out = [join(ROOT, 'README.md')];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) out.push(path);
    }
  };
  walk(join(ROOT, 'docs'));
  return out;
}
