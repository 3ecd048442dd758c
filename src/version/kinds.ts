/** What a version string is. See DESIGN.md "Version rules", rule 2. */
export type VersionKind = 'release' | 'rc' | 'prerelease' | 'describe' | 'hash' | 'unknown' | 'invalid';

/** A semver core. bigint, because numbers past 2^53 are legal semver and must still order. */
export interface Core {
  major: bigint;
  minor: bigint;
  patch: bigint;
}

/** One prerelease identifier: numeric ones compare as numbers, others as ASCII strings. */
export type PrereleaseId = bigint | string;

export interface SemverBase {
  core: Core;
  prerelease: PrereleaseId[];
}

interface Common {
  /** The input exactly as given. */
  raw: string;
  /** `-dirty`: built from a tree with uncommitted changes. Never changes order, never in step. */
  dirty: boolean;
}

export interface ReleaseVersion extends Common, SemverBase {
  kind: 'release';
}
export interface RcVersion extends Common, SemverBase {
  kind: 'rc';
  rc: bigint;
}
export interface PrereleaseVersion extends Common, SemverBase {
  kind: 'prerelease';
}
export interface DescribeVersion extends Common, SemverBase {
  kind: 'describe';
  /** The tag the description starts from, as written (`v1.4.0`). */
  baseTag: string;
  /** Commits since that tag. */
  distance: bigint;
  /** Abbreviated commit hash after the `g`. */
  hash: string;
}
export interface HashVersion extends Common {
  kind: 'hash';
  hash: string;
}
export interface UnknownVersion extends Common {
  kind: 'unknown';
}
export interface InvalidVersion extends Common {
  kind: 'invalid';
  /** Why it could not be read, for messages. */
  reason: string;
}

export type Version =
  | ReleaseVersion
  | RcVersion
  | PrereleaseVersion
  | DescribeVersion
  | HashVersion
  | UnknownVersion
  | InvalidVersion;

/** Versions that have a semver core and can be ordered and checked against a minimum. */
export type OrderedVersion = ReleaseVersion | RcVersion | PrereleaseVersion | DescribeVersion;

export function isOrdered(version: Version): version is OrderedVersion {
  return 'core' in version;
}
