import { resolve } from 'node:path';
import { isReleaseError } from '../../errors.ts';
import { buildCliArchive } from '../svc/build/build-cli-archive.ts';
import { type ReferenceImage, stageReferenceImage } from './stage-image.ts';

const IMAGES: readonly string[] = ['api', 'worker', 'web'];
const USAGE = 'usage: reference-build image <api|worker|web> <dir> | reference-build cli <archive>';

/** See reference-build.js. The version comes from the environment `release build` sets. */
export async function main(
  argv: string[],
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<number> {
  const [what, ...rest] = argv;
  try {
    if (what === 'image' && rest.length === 2 && IMAGES.includes(rest[0]!)) {
      const artifact = rest[0] as ReferenceImage;
      const version = (artifact === 'web' ? env['SERVICE_CLIENT_VERSION'] : env['SERVICE_VERSION']) ?? '';
      await stageReferenceImage({
        artifact,
        dir: resolve(cwd, rest[1]!),
        version: version.trim() || 'unknown',
      });
      process.stdout.write(`staged ${artifact} ${version} in ${rest[1]}\n`);
      return 0;
    }
    if (what === 'cli' && rest.length === 1) {
      const archive = await buildCliArchive({
        version: env['SERVICE_VERSION']?.trim() || 'unknown',
        outFile: resolve(cwd, rest[0]!),
        ...(env['SERVICE_CLI_INSTALL_COMMAND'] ? { installCommand: env['SERVICE_CLI_INSTALL_COMMAND'] } : {}),
        // The release signing key `release build` passes when signing.publicKey is set.
        ...(env['SERVICE_CLI_PUBLIC_KEY'] ? { publicKeyPem: env['SERVICE_CLI_PUBLIC_KEY'] } : {}),
      });
      process.stdout.write(`wrote ${rest[0]}: ${archive.size} bytes, sha256 ${archive.sha256}\n`);
      return 0;
    }
    process.stderr.write(`${USAGE}\n`);
    return 2;
  } catch (error) {
    process.stderr.write(`error: ${(error as Error).message}\n`);
    if (isReleaseError(error) && error.hint) process.stderr.write(`hint: ${error.hint}\n`);
    return isReleaseError(error) ? error.exitCode : 70;
  }
}
