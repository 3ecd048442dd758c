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
      example: newest[0].replace(/-rc\.\d+$/, ''),
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

/**
 * Whether a tag matches one of GitHub's filter patterns (`v*`, `*.*.*`, `[0-9]+.[0-9]+.[0-9]+`):
 * `*` any characters but `/`, `**` any, `?` and `+` of the character or class before, `[...]` a
 * class, `!` at the start negates (a later pattern wins, as GitHub reads them). Linear: the
 * pattern becomes a regular expression of classes and quantifiers on single characters only.
 */
export function matchesGithubFilters(patterns: readonly string[], tag: string): boolean {
  let matched = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const pattern = negated ? raw.slice(1) : raw;
    if (pattern.length > 200) continue;
    if (filterRegex(pattern)?.test(tag)) matched = !negated;
  }
  return matched;
}

function filterRegex(pattern: string): RegExp | undefined {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*' && pattern[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 1);
      if (end < 0) return undefined;
      out += `[${pattern.slice(i + 1, end).replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else if ((c === '+' || c === '?') && out !== '' && !/[*?+]$/.test(out)) out += c;
    else out += c.replace(/[.\\^$|(){}+?]/g, '\\$&');
  }
  try {
    return new RegExp(`^${out}$`);
  } catch {
    return undefined;
  }
}
