import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** How many config modules this process imported: each import's own query string. */
let loads = 0;

/**
 * Import a JavaScript config module (`.mjs`, `.js`) and return its default export. The query
 * string makes a changed file load afresh when one process reads it twice (tests, embedders).
 * Not `?t=`: Vite's module runner (vitest, Vite-based embedders) takes that for its own HMR
 * timestamp and drops it, so the first version of the file was served again.
 */
export async function importConfigModule(filepath: string): Promise<unknown> {
  const mod = (await import(`${pathToFileURL(filepath).href}?load=${++loads}`)) as { default?: unknown };
  return mod.default ?? mod;
}

/**
 * Import a TypeScript config (`release.config.ts`) as users write it, in any project: an ESM
 * package or a CommonJS one (no `"type": "module"`), with or without a tsconfig.json, importing
 * `defineConfig` from service-release or not. esbuild (loaded only here, so a `.json` or `.mjs`
 * config never pays for it) compiles the file and the local files it imports into one ES module;
 * packages stay imports, resolved by Node from the project's node_modules. `.mjs` makes it ESM
 * whatever the package.json says, which is what went wrong when the file was handed to Node's
 * loader as it stood.
 *
 * The compiled module is kept in node_modules/.cache (config-cache.ts), so a run whose config and
 * its local imports are unchanged imports it straight away: no esbuild process, the cost of a
 * `.json` config. Without a node_modules above the config, it is written beside the config (so
 * imports resolve exactly as from the config itself), imported and removed, as Vite does with
 * vite.config.ts.
 */
export async function importTypeScriptConfig(filepath: string): Promise<unknown> {
  const { cachedConfigModule, configCacheDir, storeConfigModule } = await import('./config-cache.ts');
  const cacheDir = configCacheDir(filepath);
  const cached = cacheDir && cachedConfigModule(cacheDir, filepath);
  // Removed under us by a run that compiled a changed config: compile it here as well.
  const fromCache = cached && (await import(pathToFileURL(cached).href).catch(() => undefined));
  if (fromCache) return defaultOf(fromCache);
  const { code, inputs } = await compileTypeScriptConfig(filepath);
  if (cacheDir) {
    const module = await storeConfigModule(cacheDir, filepath, code, inputs).catch(() => undefined);
    if (module) return defaultOf(await import(pathToFileURL(module).href));
  }
  const dir = dirname(filepath);
  const temporary = join(dir, `.${basename(filepath)}.${Date.now()}-${randomBytes(4).toString('hex')}.mjs`);
  await writeFile(temporary, code, { mode: 0o600 });
  try {
    return defaultOf(await import(pathToFileURL(temporary).href));
  } finally {
    await rm(temporary, { force: true });
  }
}

/**
 * The config and its local imports as one ES module, and the files that went into it. A config
 * that takes only `defineConfig` (a typed identity) from 'service-release' gets it inlined:
 * importing the package's main entry would load the whole library (registry, engines, signing)
 * on every run, several times what the config itself costs. A config that takes anything else
 * from it is compiled again with the real import.
 */
async function compileTypeScriptConfig(filepath: string): Promise<{ code: string; inputs: string[] }> {
  try {
    return await compileWith(filepath, true);
  } catch (error) {
    if (!String((error as Error).message).includes(INLINED)) throw error;
    return compileWith(filepath, false);
  }
}

const INLINED = 'service-release (defineConfig inlined)';

async function compileWith(filepath: string, inlineDefineConfig: boolean) {
  const { build } = await import('esbuild');
  const dir = dirname(filepath);
  const result = await build({
    entryPoints: [filepath],
    absWorkingDir: dir,
    bundle: true,
    packages: 'external',
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    plugins: inlineDefineConfig
      ? [
          {
            name: 'inline-define-config',
            setup(b) {
              b.onResolve({ filter: /^service-release$/ }, () => ({ path: INLINED, namespace: 'inline' }));
              b.onLoad({ filter: /.*/, namespace: 'inline' }, () => ({
                contents: 'export function defineConfig(config) { return config; }',
                loader: 'js',
              }));
            },
          },
        ]
      : [],
    // The config may ask where it is; it should hear its own name, not the compiled copy's.
    define: {
      __dirname: JSON.stringify(dir),
      __filename: JSON.stringify(filepath),
      'import.meta.url': JSON.stringify(pathToFileURL(filepath).href),
      'import.meta.dirname': JSON.stringify(dir),
      'import.meta.filename': JSON.stringify(filepath),
    },
  });
  const inputs = Object.keys(result.metafile.inputs)
    .filter((input) => !input.startsWith('inline:'))
    .map((input) => resolve(dir, input));
  return { code: result.outputFiles[0]!.text, inputs };
}

function defaultOf(mod: { default?: unknown }): unknown {
  return mod.default ?? mod;
}
