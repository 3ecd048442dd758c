import { gitDescribe } from './git-describe.ts';

export type VersionSource = 'env' | 'git' | 'none';

export interface ResolvedVersion {
  /** The value to report: `SERVICE_VERSION`, a git description, or `unknown`. */
  version: string;
  source: VersionSource;
}

export interface ResolveOptions {
  /** The environment to read `SERVICE_VERSION` from (pass `process.env` explicitly). */
  env: Record<string, string | undefined>;
  /** The artifact's own source tree; never defaulted to the caller's working directory. */
  cwd: string;
  /** How to ask git; replaceable so embedders can skip git entirely. */
  describe?: (dir: string) => Promise<string | undefined>;
}

/**
 * Resolve the version of one artifact (spec section 2, DESIGN.md rule 1):
 * `SERVICE_VERSION` when set and non-empty after trimming, else `git describe --tags --always
 * --dirty` in the artifact's source tree, else the literal `unknown`.
 */
export async function resolveVersion(options: ResolveOptions): Promise<ResolvedVersion> {
  const fromEnv = options.env['SERVICE_VERSION']?.trim();
  if (fromEnv) return { version: fromEnv, source: 'env' };
  const described = await (options.describe ?? gitDescribe)(options.cwd);
  if (described) return { version: described, source: 'git' };
  return { version: 'unknown', source: 'none' };
}
