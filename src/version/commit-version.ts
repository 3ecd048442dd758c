import { compareVersions } from './compare.ts';
import type { OrderedVersion } from './kinds.ts';
import { parseSemver, parseVersion } from './parse.ts';

/** The longest version a stamp takes: an image tag's limit (distribution spec). */
export const MAX_VERSION_LENGTH = 128;

/**
 * The globs `git describe --match` gets, so only version-like tags describe a commit: a stray
 * `release/2024` or `deploy-prod` tag can never become (and break) a version. `highestVersionTag`
 * filters what the globs let through (`v1.2.3.4` matches them and is not a version).
 */
export const VERSION_TAG_GLOBS: readonly string[] = ['v[0-9]*.[0-9]*.[0-9]*', '[0-9]*.[0-9]*.[0-9]*'];

/**
 * The highest version among tags that point at one commit (`v1.0.0` over `v1.0.0-rc.1`, whichever
 * is annotated: `git describe` prefers annotated tags, people tag lightweight). Tags that are not
 * a release, rc or other semver prerelease are ignored. Undefined when none is a version.
 */
export function highestVersionTag(tags: readonly string[]): string | undefined {
  let best: { tag: string; version: OrderedVersion } | undefined;
  for (const tag of tags) {
    const version = parseVersion(tag.trim());
    if (
      version.dirty ||
      (version.kind !== 'release' && version.kind !== 'rc' && version.kind !== 'prerelease')
    )
      continue;
    const order = best ? compareVersions(version, best.version) : 1;
    // Equal versions (`1.0.0` and `v1.0.0`): the `v` form, as image tags are written.
    if (order > 0 || (order === 0 && version.raw.startsWith('v') && !best!.tag.startsWith('v')))
      best = { tag: version.raw, version };
  }
  return best?.tag;
}

export interface CommitTags {
  /** `git describe --tags --always --dirty --match <VERSION_TAG_GLOBS>`; null when git gave nothing. */
  describe: string | null;
  /** Every tag pointing at HEAD (`git tag --points-at HEAD`). */
  atHead: readonly string[];
  /** Every tag pointing at the commit of the description's base tag, when it is a description. */
  atBase?: readonly string[];
}

/**
 * The version a commit's tags mean (DESIGN.md rule 1): the highest version tag on HEAD itself;
 * else the description, its base tag replaced by the highest version tag on that commit; a
 * description longer than an image tag may be is shortened to a valid dev version. `-dirty` is
 * kept. Null when git said nothing.
 */
export function versionOfCommit(tags: CommitTags): string | null {
  const { describe } = tags;
  if (describe === null) return null;
  const dirty = describe.endsWith('-dirty') ? '-dirty' : '';
  const atHead = highestVersionTag(tags.atHead);
  if (atHead) return `${atHead}${dirty}`;
  const described = parseVersion(describe);
  if (described.kind !== 'describe') return describe;
  const base = highestVersionTag(tags.atBase ?? []) ?? described.baseTag;
  return shortenDescription(base, `-${described.distance}-g${described.hash}${dirty}`);
}

/**
 * `<base><suffix>` within MAX_VERSION_LENGTH: the base tag's prerelease identifiers are dropped
 * from the end, then the last one cut, so the result stays a description of that version's
 * prerelease (it orders just above the nearest shorter prerelease); at worst the bare core.
 */
export function shortenDescription(base: string, suffix: string): string {
  const whole = `${base}${suffix}`;
  if (whole.length <= MAX_VERSION_LENGTH) return whole;
  const semver = parseSemver(base);
  const prefix = base.startsWith('v') ? 'v' : '';
  if (!semver) return whole;
  const core = `${prefix}${semver.core.major}.${semver.core.minor}.${semver.core.patch}`;
  const ids = semver.prerelease.map(String);
  const room = MAX_VERSION_LENGTH - suffix.length - core.length - 1; // 1 for the '-' before the ids
  while (ids.length > 1 && ids.join('.').length > room) ids.pop();
  if (ids.length === 1 && ids[0]!.length > room) ids[0] = ids[0]!.slice(0, Math.max(0, room));
  const candidate = ids.length && ids[0] ? `${core}-${ids.join('.')}${suffix}` : `${core}${suffix}`;
  return parseVersion(candidate).kind === 'describe' && candidate.length <= MAX_VERSION_LENGTH
    ? candidate
    : `${core}${suffix}`;
}
