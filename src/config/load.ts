import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { ConfigError } from '../errors.ts';
import { toolkitCacheDir } from './config-cache.ts';
import { importConfigModule, importTypeScriptConfig } from './import-config.ts';
import type { ReleaseConfig } from './schema.ts';
import { builtDefaults, builtSchemaId, validatedCache } from './validated-cache.ts';

export interface LoadedConfig {
  config: ReleaseConfig;
  /** The file it came from; undefined when defaults were used. */
  filepath: string | undefined;
  /** The directory relative paths in the config are resolved against. */
  dir: string;
}

// `release.config.ts` first, as DESIGN.md settles; then the other forms.
const SEARCH_PLACES = [
  'release.config.ts',
  'release.config.mjs',
  'release.config.js',
  'release.config.json',
  'package.json',
];

/**
 * Find, load and validate the configuration. `configPath` (from `--config`) must exist; otherwise
 * only `cwd` is searched (never its parents: a stray config above the project must not leak in).
 */
export async function loadConfig(options: { cwd: string; configPath?: string }): Promise<LoadedConfig> {
  let found: { config: unknown; filepath: string } | null;
  try {
    if (options.configPath) {
      const path = resolve(options.cwd, options.configPath);
      if (!existsSync(path)) {
        throw new ConfigError(`config file not found: ${path}`, [], { hint: 'check the --config path' });
      }
      found = await loadFile(path);
    } else {
      found = await search(options.cwd);
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`could not read the configuration: ${oneLine((error as Error).message)}`, [], {
      hint: 'fix the syntax of the config file, or pass --config <file>',
      cause: error,
    });
  }
  if (!found) {
    const defaults = builtDefaults() ?? (await import('./validate.ts')).validateConfig({}, 'defaults');
    return { config: defaults, filepath: undefined, dir: options.cwd };
  }
  return {
    config: await validatedConfig(found.config, found.filepath),
    filepath: found.filepath,
    dir: dirname(found.filepath),
  };
}

/**
 * The validator's answer, from the cache when the same config was accepted before by the same
 * schema (validated-cache.ts): the validator, and zod with it, loads only for a config it has not
 * seen. A cache that cannot be written (a read-only node_modules) only means validating each time.
 */
async function validatedConfig(raw: unknown, filepath: string): Promise<ReleaseConfig> {
  // Not an object: the validator names it (a cached answer for a `null` file must never be the defaults).
  if (raw === null || typeof raw !== 'object')
    return (await import('./validate.ts')).validateConfig(raw, filepath);
  const schemaId = builtSchemaId();
  const root = schemaId ? toolkitCacheDir(dirname(filepath)) : undefined;
  const cache = schemaId && root ? validatedCache(join(root, 'validated'), schemaId) : undefined;
  const kept = cache?.get(raw);
  if (kept) return kept;
  const { validateConfig } = await import('./validate.ts');
  const config = validateConfig(raw, filepath);
  await cache?.put(raw, config).catch(() => undefined);
  return config;
}

/**
 * The first of SEARCH_PLACES in `dir` that holds a config; a package.json only with a `release`
 * key. A handful of existence checks, and only the reader of the form found is loaded.
 */
async function search(dir: string): Promise<{ config: unknown; filepath: string } | null> {
  for (const place of SEARCH_PLACES) {
    const path = join(dir, place);
    if (!existsSync(path)) continue;
    if (place === 'package.json') {
      const manifest = parseJson(await readFile(path, 'utf8'), path) as Record<string, unknown> | undefined;
      return manifest && 'release' in manifest ? { config: manifest['release'], filepath: path } : null;
    }
    return loadFile(path);
  }
  return null;
}

/**
 * One config file, by its extension: a module (`.ts`, `.mjs`, `.js`, `.cjs`), JSON, a package.json's
 * `release` key, else YAML (`.yaml`, `.yml`, a file without an extension), which JSON also is.
 */
async function loadFile(path: string): Promise<{ config: unknown; filepath: string } | null> {
  const extension = extname(path);
  if (extension === '.ts') return { config: await importTypeScriptConfig(path), filepath: path };
  if (extension === '.mjs' || extension === '.js')
    return { config: await importConfigModule(path), filepath: path };
  if (extension === '.cjs') return { config: requireFresh(path), filepath: path };
  const text = await readFile(path, 'utf8');
  if (basename(path) === 'package.json') {
    const manifest = parseJson(text, path) as Record<string, unknown> | undefined;
    return { config: manifest?.['release'], filepath: path };
  }
  if (extension === '.json') return { config: parseJson(text, path), filepath: path };
  return { config: await parseYamlConfig(text, path), filepath: path };
}

/** A CommonJS config's `module.exports`, read afresh: a run in the same process sees an edited file. */
function requireFresh(path: string): unknown {
  const require = createRequire(path);
  delete require.cache[path];
  return require(path);
}

/**
 * YAML as a config file holds it: its first document, with the YAML reader's bounds; an empty
 * file is no config (the defaults); a key given twice is refused, never one of them kept silently.
 */
async function parseYamlConfig(text: string, path: string): Promise<unknown> {
  if (text.trim() === '') return undefined;
  const { readYamlValue } = await import('../text/parse-yaml.ts');
  const read = readYamlValue(text);
  if ('problem' in read)
    throw new Error(`YAML Error in ${path}: ${read.problem.message} (line ${read.problem.line})`);
  const [twice] = read.duplicates;
  if (twice)
    throw new Error(`YAML Error in ${path}: the key "${twice.key}" is given twice (line ${twice.line})`);
  return read.value;
}

/** JSON as a config file holds it: an empty file is no config (the defaults). */
function parseJson(text: string, path: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`JSON Error in ${path}: ${(error as Error).message}`);
  }
}

/** A parser's message without its code frame (`> 1 | {bad`, `    |  ^`): one line for stderr. */
function oneLine(message: string): string {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !/^(>|\||\d+ \|)/.test(line))
    .join(' ');
}
