import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The compiled `release.config.ts`, kept between runs so only the first run after a change pays
 * for esbuild (a child process: most of what a `.ts` config cost every `release stamp`). Kept in
 * `node_modules/.cache/service-release/config/` of the nearest node_modules above the config, so
 * the cached module resolves packages exactly as the config does (Node looks in that same
 * node_modules) and nothing appears in the project itself. A manifest per config file names the
 * module and the SHA-256 of every file compiled into it (the config and the local files it
 * imports): any change to one of them, and the config is compiled again.
 */

// Bump when what is compiled changes (esbuild options, defines): older entries are then ignored.
const FORMAT = 1;

interface Manifest {
  format: number;
  config: string;
  /** Absolute path -> SHA-256 of its content when compiled. */
  inputs: Record<string, string>;
  module: string;
}

/** Where the cache of the config at `filepath` lives, or undefined (no node_modules above it). */
export function configCacheDir(filepath: string): string | undefined {
  const root = toolkitCacheDir(dirname(filepath));
  return root && join(root, 'config');
}

/**
 * The toolkit's cache for a project in `dir`: node_modules/.cache/service-release of the nearest
 * node_modules at or above it, or undefined when there is none.
 */
export function toolkitCacheDir(dir: string): string | undefined {
  for (;;) {
    const modules = join(dir, 'node_modules');
    if (existsSync(modules)) return join(modules, '.cache', 'service-release');
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The cached module of the config, when every file compiled into it is unchanged. */
export function cachedConfigModule(cacheDir: string, filepath: string): string | undefined {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath(cacheDir, filepath), 'utf8')) as Manifest;
  } catch {
    return undefined; // none yet, or unreadable: compile
  }
  if (manifest.format !== FORMAT || manifest.config !== filepath) return undefined;
  for (const [input, hash] of Object.entries(manifest.inputs)) {
    try {
      if (sha256(readFileSync(input)) !== hash) return undefined;
    } catch {
      return undefined;
    }
  }
  const module = join(cacheDir, manifest.module);
  return existsSync(module) ? module : undefined;
}

/**
 * Keep a freshly compiled config: the module under its content's hash, then the manifest naming
 * it (each written whole, then renamed), then the module it replaces is removed. Returns the module.
 */
export async function storeConfigModule(
  cacheDir: string,
  filepath: string,
  code: string,
  inputs: readonly string[],
): Promise<string> {
  const { writeFileAtomically } = await import('../files/atomic-write.ts');
  const name = `${sha256(Buffer.from(code)).slice(0, 24)}.mjs`;
  const module = join(cacheDir, name);
  if (!existsSync(module)) await writeFileAtomically(module, code);
  const previous = (() => {
    try {
      return (JSON.parse(readFileSync(manifestPath(cacheDir, filepath), 'utf8')) as Manifest).module;
    } catch {
      return undefined;
    }
  })();
  const manifest: Manifest = {
    format: FORMAT,
    config: filepath,
    inputs: Object.fromEntries(inputs.map((input) => [input, sha256(readFileSync(input))])),
    module: name,
  };
  await writeFileAtomically(manifestPath(cacheDir, filepath), `${JSON.stringify(manifest)}\n`);
  if (previous && previous !== name) rmSync(join(cacheDir, previous), { force: true });
  return module;
}

function manifestPath(cacheDir: string, filepath: string): string {
  return join(cacheDir, `${sha256(Buffer.from(filepath)).slice(0, 24)}.json`);
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
