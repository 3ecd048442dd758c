import { compareCore } from './compare.ts';
import { isOrdered } from './kinds.ts';
import { parseCore, parseVersion } from './parse.ts';

export type MinimumVerdict = 'pass' | 'fail' | 'undetermined';

export interface MinimumResult {
  verdict: MinimumVerdict;
  /** One sentence saying why, for warnings and `--json`. */
  reason: string;
}

/**
 * Does a CLI version satisfy the server's `min_cli_version` (DESIGN.md rule 4)?
 *
 * Only the X.Y.Z core counts: an rc, a prerelease or a describe build of the very release that
 * raised the minimum passes, so a release candidate is not locked out by its own API. Versions
 * with no core (a bare hash, `unknown`, garbage) cannot be judged: `undetermined`, the caller
 * warns and carries on. A minimum that is not strict `X.Y.Z` is also `undetermined`.
 */
export function satisfiesMinimum(cli: string, min: string): MinimumResult {
  const minimum = typeof min === 'string' ? parseCore(min) : undefined;
  if (!minimum) {
    return { verdict: 'undetermined', reason: `the server's minimum "${String(min)}" is not X.Y.Z` };
  }
  const version = parseVersion(cli);
  if (!isOrdered(version)) {
    const what = version.kind === 'invalid' ? 'not a version' : `a ${version.kind} build`;
    return { verdict: 'undetermined', reason: `CLI version "${cli}" is ${what} and cannot be compared` };
  }
  return compareCore(version.core, minimum) >= 0
    ? { verdict: 'pass', reason: `${cli} is at or above ${min}` }
    : { verdict: 'fail', reason: `${cli} is below the minimum ${min}` };
}
