import { clean, eq, explain } from '@renovatebot/pep440';
import { type MinimumResult, satisfiesMinimum } from '../version/minimum.ts';
import { parseCore, parseVersion } from '../version/parse.ts';

/**
 * How a CLI on its own version line spells and orders its versions: `semver` (npm, Go, Rust CLIs:
 * `0.31.3`, `0.31.3-rc.1`) or `pep440` (Python: `0.31.3rc1`, `1.24.0.dev0`, `4.4.0_dev5`, `1!2.0`).
 */
export type VersionScheme = 'semver' | 'pep440';

/**
 * Whether `version` is one the scheme can order: semver needs an X.Y.Z core (a `v` and a
 * prerelease allowed, as `parseVersion` reads them); PEP 440 what `packaging` accepts.
 */
export function isSchemeVersion(scheme: VersionScheme, version: string): boolean {
  if (scheme === 'pep440') return explain(version.trim()) !== null;
  const parsed = parseVersion(version.trim());
  return 'core' in parsed;
}

/**
 * Does a CLI version satisfy the API's `min_cli_version` (X.Y.Z), in the CLI's own scheme? The
 * rule is semver's (DESIGN.md rule 4) read in PEP 440: only the release segment counts, so a
 * pre-, post- or dev-release of the very version that raised the minimum (`1.4.0rc1`,
 * `1.4.0.post2`, `1.4.0.dev3`) passes; a local label (`+ubuntu1`) is ignored; missing segments are
 * zeros (`1.4` is `1.4.0`); an epoch above 0 (`1!0.1`) is above every epoch-0 minimum. What PEP
 * 440 cannot read is `undetermined`, as in semver.
 */
export function satisfiesMinimumIn(scheme: VersionScheme, cli: string, min: string): MinimumResult {
  if (scheme === 'semver') return satisfiesMinimum(cli, min);
  const minimum = typeof min === 'string' ? parseCore(min) : undefined;
  if (!minimum)
    return { verdict: 'undetermined', reason: `the server's minimum "${String(min)}" is not X.Y.Z` };
  const version = explain(cli.trim());
  if (!version)
    return {
      verdict: 'undetermined',
      reason: `CLI version "${cli}" is not a PEP 440 version and cannot be compared`,
    };
  const wanted = [minimum.major, minimum.minor, minimum.patch];
  const order = version.epoch > 0 ? 1 : compareRelease(version.release, wanted);
  return order >= 0
    ? { verdict: 'pass', reason: `${cli} is at or above ${min}` }
    : { verdict: 'fail', reason: `${cli} is below the minimum ${min}` };
}

/** PEP 440's release-segment order: compared number by number, a missing one is 0. */
function compareRelease(a: readonly number[], b: readonly bigint[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = BigInt(a[i] ?? 0);
    const y = b[i] ?? 0n;
    if (x !== y) return x > y ? 1 : -1;
  }
  return 0;
}

/** The same version in the scheme: PEP 440's normalised equality (`1.0rc1` is `1.0.0-rc.1`), else the text without a `v`. */
export function sameOwnVersion(scheme: VersionScheme, a: string, b: string): boolean {
  if (scheme === 'pep440') return explain(a) !== null && explain(b) !== null && eq(a, b);
  return a.trim().replace(/^v/, '') === b.trim().replace(/^v/, '');
}

/**
 * The version as the CLI's build writes it into file names: PEP 440's normal form for a Python
 * package (`4.5.6_dev01` declared, `glances-4.5.6.dev1.tar.gz` built), else as declared.
 */
export function fileVersion(scheme: VersionScheme, version: string): string {
  return scheme === 'pep440' ? (clean(version) ?? version) : version;
}
