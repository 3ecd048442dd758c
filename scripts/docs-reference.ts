// npm run docs:reference — (re)write the generated command reference (scripts/command-reference.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandReferencePages } from './command-reference.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
for (const [path, text] of commandReferencePages(root)) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
  console.log(`wrote ${path}`);
}
