#!/usr/bin/env node
// Compile the toolkit for the package: every module under src/ to lib/ as plain ESM JavaScript
// (esbuild, one output file per source file, so lib/ mirrors src/ and every path computed from
// import.meta.url keeps its meaning), then, unless --js-only, `.d.ts` files beside them (tsc).
// The reference service's TypeScript sources stay in the package as they are: `release build`
// bundles them for the images with esbuild at run time.
//
//   node scripts/build.mjs            clean lib/, write JavaScript and declarations (prepack)
//   node scripts/build.mjs --js-only  write the JavaScript only (tests, `npm run release`)
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
const LIB = join(ROOT, 'lib');
const jsOnly = process.argv.includes('--js-only');

/** Every TypeScript module that runs in Node: no tests, and not the browser app Vite builds. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return relative(SRC, path) === 'service/web/app' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')
      ? [path]
      : [];
  });
}

// Each file stays a module of its own: imports are left to Node, with `./x.ts` written `./x.js`.
const keepImports = {
  name: 'keep-imports',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) => {
      if (args.kind === 'entry-point') return undefined;
      const relativeImport = args.path.startsWith('./') || args.path.startsWith('../');
      return { path: relativeImport ? args.path.replace(/\.ts$/, '.js') : args.path, external: true };
    });
  },
};

if (!jsOnly) rmSync(LIB, { recursive: true, force: true });
await build({
  entryPoints: sources(SRC),
  outdir: LIB,
  outbase: SRC,
  bundle: true,
  plugins: [keepImports],
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  logLevel: 'warning',
});

if (!jsOnly) {
  const tsc = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  // tsc keeps `./x.ts` in declarations; a consumer's TypeScript must find `./x.d.ts` instead.
  for (const file of declarations(LIB)) {
    const text = readFileSync(file, 'utf8');
    const fixed = text.replace(/((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*?)\.ts\2/g, '$1$2$3.js$2');
    if (fixed !== text) writeFileSync(file, fixed);
  }
}

function declarations(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return declarations(path);
    return entry.name.endsWith('.d.ts') ? [path] : [];
  });
}
