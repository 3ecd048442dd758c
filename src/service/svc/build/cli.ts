// `npm run build:cli`: writes dist/service-cli.tar.gz in the project it is run from. The baked
// version is SERVICE_VERSION, else the one `release stamp` wrote to dist/cli-version.json, else
// `unknown` (what a development build honestly is).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isReleaseError } from '../../../errors.ts';
import { buildCliArchive } from './build-cli-archive.ts';

export async function cliVersionFor(
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<{ version: string; from: string }> {
  const fromEnv = env['SERVICE_VERSION']?.trim();
  if (fromEnv) return { version: fromEnv, from: 'SERVICE_VERSION' };
  const file = join(cwd, 'dist', 'cli-version.json');
  try {
    const stamped = JSON.parse(await readFile(file, 'utf8')) as { version?: unknown };
    if (typeof stamped.version === 'string' && stamped.version.trim())
      return { version: stamped.version.trim(), from: file };
  } catch {
    // no stamp: a development build
  }
  return { version: 'unknown', from: 'no SERVICE_VERSION and no dist/cli-version.json' };
}

try {
  const cwd = process.cwd();
  const { version, from } = await cliVersionFor(cwd, process.env);
  const archive = await buildCliArchive({ version, outFile: join(cwd, 'dist', 'service-cli.tar.gz') });
  process.stdout.write(
    `wrote ${archive.path}: svc ${version} (from ${from}), ${archive.size} bytes, sha256 ${archive.sha256}\n`,
  );
} catch (error) {
  process.stderr.write(`error: ${(error as Error).message}\n`);
  if (isReleaseError(error) && error.hint) process.stderr.write(`hint: ${error.hint}\n`);
  process.exitCode = isReleaseError(error) ? error.exitCode : 70;
}
