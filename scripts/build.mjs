#!/usr/bin/env node
// Compile the toolkit for the package: every module under src/ to lib/ as plain ESM JavaScript
// (esbuild, one output file per source file, so lib/ mirrors src/: the library's subpaths and the
// service bins), the `release` command as a split bundle in lib/release/, then, unless --js-only,
// `.d.ts` files beside the modules (tsc). Files the toolkit reads at run time are found from
// packageRoot() (src/files/package-root.ts), never from a module's own position.
// The reference service's TypeScript sources stay in the package as they are: `release build`
// bundles them for the images with esbuild at run time.
//
//   node scripts/build.mjs            clean lib/, write JavaScript and declarations (prepack)
//   node scripts/build.mjs --js-only  write the JavaScript only (tests, `npm run release`)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
const jsOnly = process.argv.includes('--js-only');
// The JavaScript-only build overwrites lib/ in place. The full build (prepack, so also the
// package test, while other tests run the bins) writes a fresh tree beside it and swaps it in,
// so lib/ never disappears under a running test and keeps no file of a deleted source.
const FINAL = join(ROOT, 'lib');
const LIB = jsOnly ? FINAL : join(ROOT, `.lib-build-${process.pid}`);

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

// `--js-only` with nothing changed since it last ran is a no-op: `npm run rehearse`, `npm run
// release` and every test run start with it, and compiling costs 1 s on a quiet 2-core machine
// (4-7 s on a busy one). What the output is made of: every file under src/ (as a hash of paths
// and contents, not times), this script, package.json and the installed tree's lockfile (the
// bundled dependencies). The stamp is written last, after a build that succeeded.
const STAMP = join(FINAL, '.js-only-inputs');
const inputs = jsOnly ? inputsHash() : '';
if (jsOnly && readIfExists(STAMP) === inputs && existsSync(join(ROOT, 'config.schema.json'))) process.exit(0);
if (jsOnly) rmSync(STAMP, { force: true });

function inputsHash() {
  const hash = createHash('sha256');
  const files = (dir) =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? files(path) : [path];
    });
  const lockfile = join(ROOT, 'node_modules/.package-lock.json');
  for (const file of [
    ...files(SRC).sort(),
    fileURLToPath(import.meta.url),
    join(ROOT, 'package.json'),
    ...(existsSync(lockfile) ? [lockfile] : []),
  ])
    hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

function readIfExists(path) {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

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

// What the bundle knows of its config schema (src/config/validated-cache.ts): an identity (the
// sources the schema is made of, zod's version and ours), under which a validated config is
// cached, and the validated defaults, so a run that finds nothing new to validate never loads zod.
const schemaId = createHash('sha256');
for (const file of [...sources(join(SRC, 'config')), join(SRC, 'version/skew.ts')].sort())
  schemaId.update(relative(SRC, file)).update('\0').update(readFileSync(file)).update('\0');
for (const manifest of ['package.json', 'node_modules/zod/package.json'])
  schemaId.update(JSON.parse(readFileSync(join(ROOT, manifest), 'utf8')).version);
const { validateConfig } = await import(pathToFileURL(join(LIB, 'config/validate.js')).href);
const defaults = validateConfig({}, 'defaults');
const configDefines = {
  __SERVICE_RELEASE_SCHEMA_ID__: JSON.stringify(schemaId.digest('hex')),
  // Only when JSON holds the defaults exactly; else each run validates them.
  ...(isDeepStrictEqual(JSON.parse(JSON.stringify(defaults)), defaults)
    ? { __SERVICE_RELEASE_DEFAULT_CONFIG__: JSON.stringify(JSON.stringify(defaults)) }
    : {}),
};

// The `release` command once more, as a bundle with code splitting: Node then reads a handful of
// files at start-up rather than hundreds (zod alone is 95 modules), and each command's code,
// imported on demand, is a chunk of its own. Dependencies that are large, native or only some
// commands need stay imports (they load from node_modules when a command asks for them).
const releaseBundle = {
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  external: [
    'esbuild',
    'vite',
    'dockerode',
    '@sigstore/*',
    'typescript',
    '@cyclonedx/*',
    'ajv*',
    'packageurl-js',
  ],
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  legalComments: 'none',
  logLevel: 'warning',
  define: configDefines,
  // Bundled CommonJS dependencies call require(); an ES module has none without this.
  banner: {
    js: "import { createRequire as __srCreateRequire } from 'node:module';\nconst require = __srCreateRequire(import.meta.url);",
  },
};
await build({
  ...releaseBundle,
  entryPoints: { main: join(SRC, 'cli/main.ts') },
  outdir: join(LIB, 'release'),
});
// `release stamp` once more, alone (cli/stamp-main.ts): the first command of every CI job loads a
// few files of its own rather than the two dozen chunks its modules are split into above, where
// every other command shares them.
await build({
  ...releaseBundle,
  entryPoints: { 'stamp-main': join(SRC, 'cli/stamp-main.ts') },
  outdir: join(LIB, 'release/stamp'),
});

// The config's JSON Schema (service-release/config.schema.json), converted from the zod schema just
// compiled, so editors check release.config.json against exactly what the loader accepts.
const { configJsonSchema, CONFIG_SCHEMA_FILE } = await import(
  pathToFileURL(join(LIB, 'config/json-schema.js')).href
);
const schemaTemp = join(ROOT, `.${CONFIG_SCHEMA_FILE}.${process.pid}`);
writeFileSync(schemaTemp, `${JSON.stringify(configJsonSchema(), null, 2)}\n`);
renameSync(schemaTemp, join(ROOT, CONFIG_SCHEMA_FILE));

// The CycloneDX SBOM schema compiled by ajv ahead of time (src/evidence/sbom-validator-code.ts):
// every build that writes evidence would otherwise spend ~1 s of CPU compiling it. Made again only
// when the packages it is made from or its generator change (its first line names both), since
// making it costs that same second; the full build takes it over from the lib/ it replaces.
const sbomValidator = await import(pathToFileURL(join(LIB, 'evidence/sbom-validator-code.js')).href);
const validatorIdentity = `// made from ${sbomValidator.sbomValidatorMadeFrom()} by ${createHash('sha256')
  .update(readFileSync(join(SRC, 'evidence/sbom-validator-code.ts')))
  .digest('hex')}\n`;
const validatorPath = join(LIB, sbomValidator.PRECOMPILED_SBOM_VALIDATOR);
const previous = readIfExists(join(FINAL, sbomValidator.PRECOMPILED_SBOM_VALIDATOR));
if (previous?.startsWith(validatorIdentity)) {
  if (validatorPath !== join(FINAL, sbomValidator.PRECOMPILED_SBOM_VALIDATOR))
    writeFileSync(validatorPath, previous);
} else {
  const temp = `${validatorPath}.${process.pid}`;
  writeFileSync(temp, validatorIdentity + (await sbomValidator.sbomValidatorCode()));
  renameSync(temp, validatorPath);
}

if (jsOnly) writeFileSync(STAMP, inputs);

if (!jsOnly) {
  const tsc = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', LIB],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
  if (tsc.status !== 0) {
    rmSync(LIB, { recursive: true, force: true });
    process.exit(tsc.status ?? 1);
  }
  // tsc keeps `./x.ts` in declarations; a consumer's TypeScript must find `./x.d.ts` instead.
  for (const file of declarations(LIB)) {
    const text = readFileSync(file, 'utf8');
    const fixed = text.replace(/((?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]*?)\.ts\2/g, '$1$2$3.js$2');
    if (fixed !== text) writeFileSync(file, fixed);
  }
  const old = `${FINAL}-old-${process.pid}`;
  if (existsSync(FINAL)) renameSync(FINAL, old);
  renameSync(LIB, FINAL);
  rmSync(old, { recursive: true, force: true });
}

function declarations(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return declarations(path);
    return entry.name.endsWith('.d.ts') ? [path] : [];
  });
}
