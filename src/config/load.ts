import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { cosmiconfig } from 'cosmiconfig';
import { ConfigError } from '../errors.ts';
import { importConfigModule, importTypeScriptConfig } from './import-config.ts';
import type { ReleaseConfig } from './schema.ts';
import { validateConfig } from './validate.ts';

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
  let found: { config: unknown; filepath: string; isEmpty?: boolean } | null;
  try {
    // Made inside the try: making it already reads package.json (cosmiconfig's own settings).
    const explorer = cosmiconfig('release', {
      searchPlaces: SEARCH_PLACES,
      searchStrategy: 'none',
      // Our own loaders: cosmiconfig's TypeScript loader would pull in the TypeScript compiler, and
      // only a `.ts` config pays for esbuild (import-config.ts says why it is compiled, not imported).
      loaders: { '.ts': importTypeScriptConfig, '.mjs': importConfigModule, '.js': importConfigModule },
    });
    if (options.configPath) {
      const path = resolve(options.cwd, options.configPath);
      if (!existsSync(path)) {
        throw new ConfigError(`config file not found: ${path}`, [], { hint: 'check the --config path' });
      }
      found = await explorer.load(path);
    } else {
      found = await explorer.search(options.cwd);
    }
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`could not read the configuration: ${oneLine((error as Error).message)}`, [], {
      hint: 'fix the syntax of the config file, or pass --config <file>',
      cause: error,
    });
  }
  if (!found) return { config: validateConfig({}, 'defaults'), filepath: undefined, dir: options.cwd };
  return {
    config: validateConfig(found.config, found.filepath),
    filepath: found.filepath,
    dir: dirname(found.filepath),
  };
}

/** A parser's message without its code frame (`> 1 | {bad`, `    |  ^`): one line for stderr. */
function oneLine(message: string): string {
  return message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !/^(>|\||\d+ \|)/.test(line))
    .join(' ');
}
