import type { Core, OrderedVersion, PrereleaseId, SemverBase, Version } from './kinds.ts';
import { isOrdered } from './kinds.ts';
import { parseVersion } from './parse.ts';

// Hand-written rather than the `semver` package: that package rejects numbers past 2^53 and has no
// notion of `git describe` output, and both must order correctly here (DESIGN.md rule 3).

export function compareCore(a: Core, b: Core): number {
  return sign(a.major - b.major) || sign(a.minor - b.minor) || sign(a.patch - b.patch);
}

/** Semver precedence of two bases (core, then prerelease identifiers; build metadata ignored). */
export function compareSemver(a: SemverBase, b: SemverBase): number {
  const core = compareCore(a.core, b.core);
  if (core !== 0) return core;
  // A version without prerelease has higher precedence than one with.
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return sign(BigInt(b.prerelease.length - a.prerelease.length));
  }
  const n = Math.min(a.prerelease.length, b.prerelease.length);
  for (let i = 0; i < n; i++) {
    const c = compareIdentifier(a.prerelease[i]!, b.prerelease[i]!);
    if (c !== 0) return c;
  }
  return sign(BigInt(a.prerelease.length - b.prerelease.length));
}

/**
 * Order two versions that have a core. A description sorts after its base tag and before anything
 * above that tag: `v1.2.3` < `v1.2.3-4-gabc` < `v1.2.3-5-gdef` < `v1.2.4-rc.1` < `v1.2.4`.
 * `-dirty` does not change order.
 */
export function compareVersions(a: OrderedVersion, b: OrderedVersion): number {
  const base = compareSemver(a, b);
  if (base !== 0) return base;
  return sign(distanceOf(a) - distanceOf(b));
}

/** Compare two raw strings; throws for strings that have no order (hash, unknown, invalid). */
export function compareVersionStrings(a: string, b: string): number {
  return compareVersions(ordered(parseVersion(a)), ordered(parseVersion(b)));
}

/**
 * Whether two tags name the same version, ignoring one leading `v` (`v1.2.3` == `1.2.3`).
 * A dirty build never equals anything: it is never "in step".
 */
export function sameTag(a: string, b: string): boolean {
  if (a.endsWith('-dirty') || b.endsWith('-dirty')) return false;
  return stripV(a) === stripV(b);
}

export function stripV(tag: string): string {
  return /^v\d/.test(tag) ? tag.slice(1) : tag;
}

function distanceOf(v: OrderedVersion): bigint {
  return v.kind === 'describe' ? v.distance : 0n;
}

function compareIdentifier(a: PrereleaseId, b: PrereleaseId): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return sign(a - b);
  if (typeof a === 'bigint') return -1; // numeric identifiers sort before alphanumeric ones
  if (typeof b === 'bigint') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

function ordered(v: Version): OrderedVersion {
  if (!isOrdered(v)) throw new TypeError(`"${v.raw}" is a ${v.kind} version and has no order`);
  return v;
}

function sign(n: bigint): number {
  return n > 0n ? 1 : n < 0n ? -1 : 0;
}
