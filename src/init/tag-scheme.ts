import { printable } from '../text/printable.ts';

/**
 * How a repository names its release tags, for the triggers and look-ups of the CI init writes:
 * with or without a `v` (`v1.4.0`, `1.4.0`, CalVer `2026.6.0`), read from its tags (newest first)
 * and from the tag triggers of the workflows it already has. Pure.
 */
export interface TagScheme {
  /** `v` or nothing before the numbers. */
  prefix: '' | 'v';
  /** The tags are dates (`2026.6.0`): CalVer. */
  calver: boolean;
  from: string;
  /** An example of a release tag and of a release candidate's, for the comments. */
  example: string;
}

const RELEASE_TAG = /^(v?)(\d+)\.(\d+)\.(\d+)(?:-rc\.\d+)?$/;

/**
 * `tags`: the repository's tags, newest first. `triggers`: the `on.push.tags` patterns of its
 * existing workflows (`v*`, `*.*.*`, `[0-9]+.[0-9]+.[0-9]+`).
 */
export function tagScheme(
  tags: readonly string[],
  triggers: readonly { file: string; pattern: string }[] = [],
): TagScheme {
  const released = tags.map((t) => RELEASE_TAG.exec(t)).filter((m): m is RegExpExecArray => m !== null);
  const newest = released[0];
  if (newest) {
    const prefix = newest[1] === 'v' ? 'v' : '';
    const calver = Number(newest[2]) >= 2000;
    return {
      prefix,
      calver,
      from: `git tag (newest ${newest[0]}${released.length > 1 ? `, ${released.length} release tags` : ''})`,
      example: example(prefix, calver),
    };
  }
  for (const trigger of triggers) {
    const file = printable(trigger.file, { max: 80 });
    const pattern = printable(trigger.pattern, { max: 40 });
    if (/^v/.test(pattern) || /^\*?v[\d[*]/.test(pattern))
      return scheme('v', false, `${file} (tags: ${pattern})`);
    if (/^[\d[*]/.test(pattern) && /\./.test(pattern)) {
      const calver = /^20\d\d\b/.test(pattern);
      return scheme('', calver, `${file} (tags: ${pattern})`);
    }
  }
  return scheme('v', false, 'no release tag yet: v1.2.3');
}

function scheme(prefix: '' | 'v', calver: boolean, from: string): TagScheme {
  return { prefix, calver, from, example: example(prefix, calver) };
}

function example(prefix: string, calver: boolean): string {
  return calver ? `${prefix}2026.6.0` : `${prefix}1.2.3`;
}

/** GitHub's `on.push.tags` filters for a release and a release candidate of this scheme. */
export function githubTagFilters(scheme: TagScheme): string[] {
  const version = `${scheme.prefix}[0-9]+.[0-9]+.[0-9]+`;
  return [version, `${version}-rc.[0-9]+`];
}

/** A GitLab rule's regular expression for the same tags. */
export function gitlabTagRegex(scheme: TagScheme): string {
  return `/^${scheme.prefix}\\d+\\.\\d+\\.\\d+(-rc\\.\\d+)?$/`;
}
