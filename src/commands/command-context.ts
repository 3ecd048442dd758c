import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../config/load.ts';
import { currentIo } from '../console/cli-io.ts';
import { UsageError } from '../errors.ts';
import type { BaseContext } from '../pipeline/context.ts';

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
  const cwd = projectDir(io.cwd, options.cwd);
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

/** `--cwd` (else the working directory), resolved, and checked to be a directory that exists. */
export function projectDir(base: string, flag: string | undefined): string {
  const dir = resolve(base, flag ?? '.');
  const kind = (() => {
    try {
      return statSync(dir).isDirectory() ? 'dir' : 'file';
    } catch {
      return 'missing';
    }
  })();
  if (kind !== 'dir')
    throw new UsageError(
      'CWD_INVALID',
      `${flag === undefined ? 'the working directory' : '--cwd'} ${dir} ${kind === 'missing' ? 'does not exist' : 'is not a directory'}`,
      { hint: 'pass --cwd <the project directory>' },
    );
  return dir;
}
