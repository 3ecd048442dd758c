import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
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
 * packages stay imports, resolved by Node from the project's node_modules. That module is written
 * beside the config (so those imports resolve exactly as from the config itself), imported and
 * removed, as Vite does with vite.config.ts. `.mjs` makes it ESM whatever the package.json says,
 * which is what went wrong when the file was handed to Node's loader as it stood.
 */
export async function importTypeScriptConfig(filepath: string): Promise<unknown> {
  const { build } = await import('esbuild');
  const dir = dirname(filepath);
  const result = await build({
    entryPoints: [filepath],
    absWorkingDir: dir,
    bundle: true,
    packages: 'external',
    write: false,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    // The config may ask where it is; it should hear its own name, not the temporary file's.
    define: {
      __dirname: JSON.stringify(dir),
      __filename: JSON.stringify(filepath),
      'import.meta.url': JSON.stringify(pathToFileURL(filepath).href),
      'import.meta.dirname': JSON.stringify(dir),
      'import.meta.filename': JSON.stringify(filepath),
    },
  });
  const code = result.outputFiles[0]!.text;
  const temporary = join(dir, `.${basename(filepath)}.${Date.now()}-${randomBytes(4).toString('hex')}.mjs`);
  await writeFile(temporary, code, { mode: 0o600 });
  try {
    const mod = (await import(pathToFileURL(temporary).href)) as { default?: unknown };
    return mod.default ?? mod;
  } finally {
    await rm(temporary, { force: true });
  }
}
