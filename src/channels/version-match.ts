import { UsageError } from '../errors.ts';
import { compareCore, compareVersions, sameTag } from '../version/compare.ts';
import { existingSpelling, imageTagOf, spellLike } from '../version/image-tag.ts';
import type { RcVersion } from '../version/kinds.ts';
import { parseVersion } from '../version/parse.ts';

/**
 * The version rules of a promotion (DESIGN.md "Channels and tags": a release is its rc's code, an
 * image says which version it is). Pure: the promote step hands in what it read.
 */

/**
 * A release made from an rc (or from another version tag) is that version's release: `--from
 * v2.0.0-rc.9 --version v3.0.0` would sign an rc of 2.0.0 as 3.0.0. A `--from` that is not a
 * version (a digest) is not judged here. Throws a UsageError (exit 2).
 */
export function checkReleaseFrom(from: string, release: string): void {
  const source = parseVersion(from);
  const target = parseVersion(release);
  if (source.kind !== 'rc' && source.kind !== 'release') return;
  if (target.kind !== 'release' || source.dirty) return; // the channel refuses these with its own reason
  if (compareCore(source.core, target.core) === 0) return;
  throw new UsageError(
    'VERSION_MISMATCH',
    `--from ${from} is ${core(from)}, not ${core(release)}: a release is made only from an rc of the same X.Y.Z`,
    {
      hint: `release ${core(from)} (--version ${spellLike(core(from), from)}), or release ${imageTagOf(target)} from one of its own rcs (--from ${imageTagOf(target)}-rc.N)`,
    },
  );
}

/**
 * The rcs of the same X.Y.Z newer than the one named, highest first: `--from v1.0.0-rc.2` while
 * `v1.0.0-rc.3` exists is allowed (a team may release an older rc on purpose) but said.
 */
export function newerRcs(from: string, tags: readonly string[]): string[] {
  const named = parseVersion(from);
  if (named.kind !== 'rc') return [];
  const newer = tags
    .map((tag) => parseVersion(tag))
    .filter((v) => v.kind === 'rc' && !v.dirty && compareCore(v.core, named.core) === 0 && v.rc > named.rc);
  return newer
    .sort((a, b) => Number((b as { rc: bigint }).rc - (a as { rc: bigint }).rc))
    .map((v) => imageTagOf(v));
}

/**
 * An rc promoted from the record's build is the version that build baked into its images (env,
 * label): `--version v1.0.0-rc.2` over a build of `v1.0.0-rc.1` would tag and sign an image that
 * says rc.1. Throws a UsageError (exit 2).
 */
export function checkRcIsBuild(version: string, built: string): void {
  if (sameTag(version, built)) return;
  throw new UsageError(
    'VERSION_MISMATCH',
    `--version ${version} is not the version the release record's build baked into its images (${built})`,
    {
      hint: `promote ${built} (drop --version), or stamp and build ${version} first (SERVICE_VERSION=${version} release stamp && release build)`,
    },
  );
}

function core(tag: string): string {
  const v = parseVersion(tag);
  return 'core' in v ? `${v.core.major}.${v.core.minor}.${v.core.patch}` : tag;
}

/**
 * The tag `--from` names in a store, as it is spelled there (DESIGN.md "Channels and tags":
 * look-ups accept either spelling and name the tag that exists): `v2026.7.0-rc.1` asked of a
 * store holding `2026.7.0-rc.1` is that tag, and `respelled` says so. When neither spelling
 * exists, `nearest` lists the rcs that do, nearest first. A digest or any other reference is
 * returned as it is.
 */
export function findFromTag(
  from: string,
  tags: readonly string[],
): { tag: string; respelled: boolean } | { missing: true; nearest: string[] } {
  const version = parseVersion(from);
  if (version.kind !== 'rc' && version.kind !== 'release') return { tag: from, respelled: false };
  const found = existingSpelling(from, tags);
  if (found !== undefined) return { tag: found, respelled: found !== from };
  return { missing: true, nearest: nearestRcs(from, tags) };
}

/**
 * The rcs in `tags` nearest to `asked`, at most `limit`: those of its X.Y.Z first (highest rc
 * first), then the others from the closest version outwards (the ones above before the ones
 * below at equal distance in the ordering). What a "no such rc" error suggests.
 */
export function nearestRcs(asked: string, tags: readonly string[], limit = 3): string[] {
  const target = parseVersion(asked);
  const rcs = tags
    .map((tag) => parseVersion(tag))
    .filter((v): v is RcVersion => v.kind === 'rc' && !v.dirty)
    .sort((a, b) => compareVersions(b, a));
  if (!('core' in target)) return rcs.slice(0, limit).map((v) => v.raw);
  const same = rcs.filter((v) => compareCore(v.core, target.core) === 0);
  const above = rcs.filter((v) => compareCore(v.core, target.core) > 0).reverse();
  const below = rcs.filter((v) => compareCore(v.core, target.core) < 0);
  const others: RcVersion[] = [];
  for (let i = 0; others.length < above.length + below.length; i++) {
    if (above[i]) others.push(above[i]!);
    if (below[i]) others.push(below[i]!);
  }
  return [...same, ...others].slice(0, limit).map((v) => v.raw);
}
