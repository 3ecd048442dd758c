#!/usr/bin/env node
// npm run build:action — bundle the GitHub Action's entry (src/action/main.ts) into
// dist-action/index.js, the file action.yml runs. It is committed (a runner does not install the
// Action's dependencies), so the bundle must be reproducible: test/action/action-bundle.test.ts
// rebuilds it in memory and fails when the committed bytes differ.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const ACTION_BUNDLE = 'dist-action/index.js';

/** The bundle's bytes: Node built-ins only, no source map, no legal comments, no timestamps. */
export async function actionBundle() {
  const result = await build({
    entryPoints: [join(ROOT, 'src/action/main.ts')],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    legalComments: 'none',
    logLevel: 'warning',
    banner: { js: '// Built by `npm run build:action` from src/action/: do not edit.' },
  });
  return result.outputFiles[0].contents;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = join(ROOT, ACTION_BUNDLE);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, await actionBundle());
  console.log(`wrote ${ACTION_BUNDLE}`);
}
