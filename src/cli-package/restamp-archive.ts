import { normalize } from 'node:path';
import { packNpmPackage } from '../archives/npm-package-archive.ts';
import { readPackageArchive } from '../archives/read-package-archive.ts';
import { CLI_ARCHIVE_INVALID, UsageError } from '../errors.ts';
import { rewriteVersionFile, type VersionFile } from '../reversion/version-files.ts';
import { packageVersionOf } from '../version/package-version.ts';

/**
 * Re-version an npm package archive (an `npm pack` tarball, `package/...`), any npm CLI: its
 * package.json gets the new npm `version` and, for an svc built by this toolkit, `serviceVersion`
 * (the version svc bakes in and prints, see service/svc/version.ts); every other file keeps its
 * bytes. The result is packed as `npm pack` packs (archives/npm-package-archive.ts), as the build packs it, so re-stamping is
 * reproducible and `restampCliArchive(build(v1), v2)` is byte-identical to `build(v2)` for a
 * CLI that reads its version from package.json. A CLI that bakes its version into its code is
 * rebuilt from the rc's commit instead (src/reversion/).
 *
 * Used when a release is made from an rc: the release's archive carries the rc's tested code.
 * `fields` are set in package.json as well (the npm registry's copy marks itself, see
 * REGISTRY_MARK); `versionFiles` (artifacts.cli.versionFiles, paths in the package) are re-written
 * by their format.
 */
export async function restampCliArchive(
  archive: Buffer,
  version: string,
  fields: Record<string, string> = {},
  versionFiles: readonly VersionFile[] = [],
): Promise<Buffer> {
  const wanted = version.trim();
  if (!wanted || wanted.length > 128 || /[\s\u0000-\u001f\u007f-\u009f]/.test(wanted)) {
    throw new UsageError('CLI_VERSION_INVALID', `"${version}" cannot be the CLI package's version`, {
      hint: 'use the release tag: no spaces or control characters, at most 128 characters',
    });
  }
  let entries: ReturnType<typeof readPackageArchive>;
  try {
    entries = readPackageArchive(archive);
  } catch (error) {
    throw new UsageError(
      CLI_ARCHIVE_INVALID,
      `the CLI archive cannot be re-stamped: ${(error as Error).message}`,
    );
  }
  const manifestEntry = entries.find((entry) => entry.path === 'package.json');
  if (!manifestEntry) throw new UsageError(CLI_ARCHIVE_INVALID, 'the CLI archive has no package.json');
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(manifestEntry.content.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new UsageError(CLI_ARCHIVE_INVALID, "the CLI archive's package.json is not JSON");
  }
  if (typeof manifest['version'] !== 'string')
    throw new UsageError(CLI_ARCHIVE_INVALID, "the CLI archive's package.json has no version");
  // Assigning existing keys keeps their place, so the file differs from the build's only in values.
  manifest['version'] = packageVersionOf(wanted);
  // An svc built by this toolkit reads its version from here (whatever the package is called).
  if (typeof manifest['serviceVersion'] === 'string') manifest['serviceVersion'] = wanted;
  Object.assign(manifest, fields);

  const absent = versionFiles.filter((f) => !entries.some((e) => e.path === f.path));
  if (absent.length)
    throw new UsageError(
      CLI_ARCHIVE_INVALID,
      `the CLI archive has no ${absent.map((f) => f.path).join(', ')} (artifacts.cli.versionFiles)`,
      { hint: 'declare paths inside the npm package, relative to its package.json' },
    );
  const files = entries.map((entry) => {
    const path = normalize(entry.path);
    if (!path || path.startsWith('..') || path.startsWith('/'))
      throw new UsageError(CLI_ARCHIVE_INVALID, `the CLI archive has an unsafe path ${JSON.stringify(path)}`);
    const declared = versionFiles.find((f) => f.path === path);
    const content =
      path === 'package.json'
        ? Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)
        : declared
          ? rewriteVersionFile(path, entry.content, declared, wanted)
          : entry.content;
    return { path, content, mode: entry.mode };
  });
  // Entry for entry, in the archive's order and modes: every file but the re-versioned ones keeps
  // its bytes, and the archive its shape.
  return packNpmPackage(files);
}

/**
 * The package.json field the copy published to the npm registry carries, so `svc doctor` can tell
 * a registry install from one of the API's archive: npm keeps no record of where a global package
 * came from, and the code bytes are the same.
 */
export const REGISTRY_MARK = { serviceCliDistribution: 'npm-registry' } as const;
