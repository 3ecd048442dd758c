import { resolve } from 'node:path';
import { loadConfig } from '../config/load.ts';
import type { BaseContext } from '../pipeline/context.ts';
import { currentIo } from '../util/cli-io.ts';

/** Options every command accepts. */
export interface GlobalOptions {
  cwd?: string;
  config?: string;
  json?: boolean;
  dryRun?: boolean;
}

/** Build the shared part of a command's context: cwd, loaded config, environment, flags. */
export async function baseContext(options: GlobalOptions): Promise<BaseContext> {
  const io = currentIo();
  const cwd = resolve(io.cwd, options.cwd ?? '.');
  const loaded = await loadConfig({ cwd, ...(options.config ? { configPath: options.config } : {}) });
  return {
    cwd,
    config: loaded.config,
    configDir: loaded.dir,
    env: { ...io.env },
    dryRun: Boolean(options.dryRun),
    json: Boolean(options.json),
    warnings: [],
  };
}
