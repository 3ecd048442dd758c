import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isReleaseError } from '../../errors.ts';
import { parseVersion } from '../../version/parse.ts';
import { type ResolvedVersion, resolveVersion } from '../../version-source/resolve-version.ts';

/**
 * Resolve a reference server's version once, in the artifact's own source tree: the directory of
 * the running module (the bundle's directory in an image, `src/service/<artifact>` in a checkout),
 * never the working directory it was started from. Oddities go to stderr as warnings.
 */
export async function resolveOwnVersion(
  moduleUrl: string,
  env: Record<string, string | undefined>,
  warn: (line: string) => void,
): Promise<ResolvedVersion> {
  const resolved = await resolveVersion({ env, cwd: sourceDirOf(moduleUrl) });
  const kind = parseVersion(resolved.version).kind;
  if (resolved.source === 'git' && kind === 'hash') {
    warn(`version ${resolved.version} is a bare commit hash: no tag is reachable (a shallow clone?)`);
  } else if (kind === 'invalid') {
    warn(`version "${resolved.version}" is not a version the release tools can compare`);
  } else if (resolved.source === 'none') {
    warn('version unknown: SERVICE_VERSION is unset and there is no source checkout');
  }
  return resolved;
}

export function sourceDirOf(moduleUrl: string): string {
  return dirname(fileURLToPath(moduleUrl));
}

/**
 * Whether the module runs from the toolkit's own tree (its TypeScript sources under src/, or
 * their compiled copy under lib/, which mirrors src/) rather than a bundle in an image. Paths
 * such as `dist/web` are then found relative to the package root.
 */
export function runsFromSource(moduleUrl: string): boolean {
  return moduleUrl.endsWith('.ts') || /\/lib\/service\/[^?#]*\.js$/.test(moduleUrl);
}

/** Print a start-up failure for an operator (message and hint, no stack unless it is a bug). */
export function reportStartupError(name: string, error: unknown): number {
  if (isReleaseError(error)) {
    process.stderr.write(`${name}: error: ${error.message}\n`);
    if (error.hint) process.stderr.write(`${name}: hint: ${error.hint}\n`);
    return error.exitCode;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`${name}: internal error: ${detail}\n`);
  return 70;
}
