/**
 * The forms a version takes in what a build writes: the `v` form (`v3.1.0-rc.1`, what a `v`
 * project tags and many programs print whatever the tag), the bare SemVer (`3.1.0-rc.1`, npm's
 * `version`, and a project's tag when it writes none: `2026.7.0-rc.1`) and the PEP 440 form
 * (`3.1.0rc1`, a Python package's). A rebuild of the rc's commit with the release's version may
 * differ from the rc in these strings and nothing else; each is replaced by its own form, so a
 * project's spelling is kept. Pure.
 */
export interface VersionForms {
  tag: string;
  semver: string;
  pep440: string;
}

export function versionForms(version: string): VersionForms {
  const tag = version.startsWith('v') ? version : `v${version}`;
  const semver = tag.slice(1);
  // PEP 440 spells pre-releases without separators: 3.1.0-rc.1 -> 3.1.0rc1 (alpha/beta likewise).
  const pep440 = semver
    .replace(/-(?:rc|c)\.?(\d+)$/, 'rc$1')
    .replace(/-(?:alpha|a)\.?(\d+)$/, 'a$1')
    .replace(/-(?:beta|b)\.?(\d+)$/, 'b$1');
  return { tag, semver, pep440 };
}

/** The distinct strings of the forms, longest first (so `v3.1.0-rc.1` wins over `3.1.0-rc.1`). */
export function versionStrings(version: string): string[] {
  const { tag, semver, pep440 } = versionForms(version);
  return [...new Set([tag, semver, pep440])].sort((a, b) => b.length - a.length);
}

/**
 * Whether `text` (bytes as latin1, so any file) holds the version in any of its distinctive
 * forms: the `v` tag and the version as the project writes it always; the other bare forms only
 * with a pre-release part (`3.1.0-rc.1`, `3.1.0rc1`). A bare `1.4.0` is in every bundle that pins
 * some dependency at 1.4.0, so it proves little, unless it is how the project tags (`2026.7.0`):
 * then it is the tag the build stamped.
 */
export function carriesVersion(text: string, version: string): boolean {
  const { tag, semver, pep440 } = versionForms(version);
  const bare = /^\d+\.\d+\.\d+$/;
  return [tag, version, ...[semver, pep440].filter((form) => !bare.test(form))].some((form) =>
    text.includes(form),
  );
}

/**
 * `text` with every form of `from` replaced by the same form of `to`, in one pass (a form of `to`
 * is never replaced again). A form must not continue a longer version: in `3.1.0-rc.10`, the
 * `3.1.0-rc.1` is not the rc's version, and `13.1.0` does not hold `3.1.0`.
 */
export function replaceVersionStrings(text: string, from: string, to: string): string {
  const a = versionForms(from);
  const b = versionForms(to);
  const map = new Map<string, string>([
    [a.pep440, b.pep440],
    [a.semver, b.semver],
    [a.tag, b.tag],
  ]);
  const alternatives = [...map.keys()].sort((x, y) => y.length - x.length).map(escapeRegExp);
  const pattern = new RegExp(`(?<![0-9A-Za-z.])(?:${alternatives.join('|')})(?![0-9A-Za-z])`, 'g');
  return text.replace(pattern, (found) => map.get(found) ?? found);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
