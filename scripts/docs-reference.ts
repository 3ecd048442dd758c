// npm run docs:reference — (re)write the generated reference pages: one per command
// (scripts/command-reference.ts) and the config keys (scripts/config-reference.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { commandReferencePages } from './command-reference.ts';
import { CONFIG_KEYS_PAGE, configKeysPage } from './config-reference.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const pages = commandReferencePages(root).set(CONFIG_KEYS_PAGE, configKeysPage());
for (const [path, text] of pages) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
  console.log(`wrote ${path}`);
}
