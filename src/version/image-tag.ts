import { sameTag } from './compare.ts';
import type { Version } from './kinds.ts';

/** Docker/OCI tag grammar (distribution spec): what any value we stamp or push must match. */
export const IMAGE_TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/**
 * The image tag for a version: the version as the project writes it (DESIGN.md "Channels and
 * tags"). A project tagging `v1.2.3` gets `v1.2.3`, one tagging `2026.7.0` (CalVer, or plain
 * semver without a `v`) gets `2026.7.0`: no `v` is ever added or removed here. Where a value
 * given by hand must meet a tag that exists, `tagSpellings` and `spellLike` say the other form.
 */
export function imageTagOf(version: Version): string {
  return version.raw;
}

/**
 * The spellings one version tag may have in a store, the one given first: `v2026.7.0` and
 * `2026.7.0` name one version (DESIGN.md version rule 2). Anything that is not `v?X.Y.Z...` (a
 * hash, `dev`, `latest`) has one spelling.
 */
export function tagSpellings(tag: string): string[] {
  if (/^v\d+\.\d+\.\d+/.test(tag)) return [tag, tag.slice(1)];
  if (/^\d+\.\d+\.\d+/.test(tag)) return [tag, `v${tag}`];
  return [tag];
}

/**
 * `tag` spelled as `example` is (with or without the `v`): `--version v2026.7.0` beside an rc
 * tagged `2026.7.0-rc.1` is `2026.7.0`. A tag or example that is not a version is left as it is.
 */
export function spellLike(tag: string, example: string): string {
  const spellings = tagSpellings(tag);
  if (spellings.length === 1 || tagSpellings(example).length === 1) return tag;
  const wantsV = example.startsWith('v');
  return spellings.find((s) => s.startsWith('v') === wantsV) ?? tag;
}

/**
 * The tag among `existing` that names the same version as `asked`: the one asked for when it is
 * there, else its other spelling; undefined when neither is.
 */
export function existingSpelling(asked: string, existing: Iterable<string>): string | undefined {
  const present = new Set(existing);
  if (present.has(asked)) return asked;
  return tagSpellings(asked).find((s) => present.has(s) && sameTag(s, asked));
}

export function isValidImageTag(tag: string): boolean {
  return IMAGE_TAG.test(tag);
}
