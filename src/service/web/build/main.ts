import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { outputFor } from '../../../console/output.ts';
import { UsageError } from '../../../errors.ts';
import { buildWeb } from './build-web.ts';
import { CLIENT_VERSION_VARIABLE, clientVersionOf } from './client-version.ts';

/**
 * `npm run build:web [-- --out-dir <dir>]`: build the web client into `dist/web` (or `--out-dir`).
 *
 * The version is `SERVICE_CLIENT_VERSION` when set; otherwise the `SERVICE_CLIENT_VERSION=` line
 * of `dist/release.env` that `release stamp` wrote in the current directory, so
 * `release stamp && npm run build:web` needs no shell plumbing; otherwise `unknown`. The line
 * printed says which source won, so a stale stamp is visible.
 */
const output = outputFor({ prefix: '', bug: 'this is a bug in service-release' });

export async function main(argv: string[], env = process.env, cwd = process.cwd()): Promise<number> {
  try {
    const { values } = parseArgs({ args: argv, options: { 'out-dir': { type: 'string' } } });
    const outDir = resolve(cwd, values['out-dir'] ?? 'dist/web');
    const { raw, source } = await versionInput(env, cwd);
    const version = clientVersionOf(raw);
    await buildWeb({ version, outDir });
    output.line(`service-web build ${version} (source ${source}) -> ${outDir}`);
    return 0;
  } catch (error) {
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      return output.error(
        new UsageError('USAGE', error.message, { hint: 'usage: build:web [--out-dir <dir>]' }),
        false,
      );
    }
    return output.error(error, false);
  }
}

async function versionInput(
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<{ raw: string | undefined; source: 'env' | 'release.env' | 'none' }> {
  const fromEnv = env[CLIENT_VERSION_VARIABLE];
  if (fromEnv?.trim()) return { raw: fromEnv, source: 'env' };
  const stamped = await readFile(resolve(cwd, 'dist/release.env'), 'utf8').catch(() => undefined);
  const line = stamped
    ?.split('\n')
    .find((l) => l.startsWith(`${CLIENT_VERSION_VARIABLE}=`))
    ?.slice(CLIENT_VERSION_VARIABLE.length + 1);
  if (line?.trim()) return { raw: line, source: 'release.env' };
  return { raw: undefined, source: 'none' };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
