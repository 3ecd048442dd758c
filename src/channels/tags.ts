import type { Channel } from './channel-of.ts';

/**
 * How a tag behaves: a `version` tag (`v1.2.0`, `v1.2.0-rc.1`) is immutable; a `commit` tag
 * (`sha-<12 hex>`) names a commit and follows a rebuild of it; a `floating` tag (`latest`, `dev`)
 * moves between versions and is written last, so a failure can put it back; a `build` tag
 * (`build-<12 hex>`) is where `release build` leaves its images, which no channel reads and no
 * promotion writes. Whether a version tag is a release or a release candidate is the version's
 * kind (`channelOf`), not the tag's.
 */
export type TagKind = 'version' | 'commit' | 'floating' | 'build';

/** Tags that move from version to version. */
export const FLOATING_TAGS: readonly string[] = ['latest', 'dev'];

const COMMIT_TAG = /^sha-[0-9a-f]{7,64}$/;
const BUILD_TAG = /^build-[0-9a-f]{12}$/;

/**
 * Where `release build` writes an image: `build-` and the first 12 hex digits of the commit (of the
 * version's text when there is no commit, so a build outside git still has a tag of its own). Only
 * promotion writes channel tags (DESIGN.md "Channels and tags"), so a rebuild never moves a version
 * tag, `latest` or `dev`; a rebuild of the same commit replaces its build tag, nothing else.
 */
export function buildTag(commit: string | null, fallbackHex: string): string {
  const hex = commit && /^[0-9a-f]{12,}$/.test(commit) ? commit : fallbackHex;
  return `build-${hex.slice(0, 12)}`;
}

/** dev's commit tag: `sha-` and the first 12 hex digits of the commit. */
export function commitTag(commit: string): string {
  return `sha-${commit.slice(0, 12)}`;
}

/** The kind of any tag found in a repository. */
export function tagKind(tag: string): TagKind {
  if (FLOATING_TAGS.includes(tag)) return 'floating';
  if (BUILD_TAG.test(tag)) return 'build';
  return COMMIT_TAG.test(tag) ? 'commit' : 'version';
}

/**
 * Whether a tag says which version an image is. Floating, commit and build tags do not (`latest`
 * was some version once; `sha-...` and `build-...` are a commit), so verify reads the version from
 * the image instead.
 */
export function namesVersion(tag: string): boolean {
  return tagKind(tag) === 'version';
}

/**
 * The tags a build gets in a channel (DESIGN.md "Channels and tags"): dev -> `dev` and
 * `sha-<12 hex>`; rc -> its `vX.Y.Z-rc.N`; release -> `vX.Y.Z` and `latest`. Whether `latest`
 * really moves is the promotion plan's business (it never moves backwards); this is the intent.
 * Stamp, the plan, promote and verify all read it here.
 */
export function channelTags(channel: Channel, tag: string, commit: string | undefined): string[] {
  switch (channel) {
    case 'dev':
      return commit ? ['dev', commitTag(commit)] : ['dev'];
    case 'rc':
      return [tag];
    case 'release':
      return [tag, 'latest'];
  }
}
