import type { Core, PrereleaseId, SemverBase, Version } from './kinds.ts';

// Numeric identifiers: 0 or no leading zero (semver 2.0.0 item 2).
const NUM = '(?:0|[1-9]\\d*)';
const IDENT = '(?:0|[1-9]\\d*|\\d*[A-Za-z-][0-9A-Za-z-]*)';
const SEMVER = new RegExp(
  `^v?(${NUM})\\.(${NUM})\\.(${NUM})(?:-(${IDENT}(?:\\.${IDENT})*))?(?:\\+([0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*))?$`,
);
// `git describe --tags` after a tag: <tag>-<distance>-g<abbreviated hash>.
const DESCRIBE = /^(.+)-(0|[1-9]\d*)-g([0-9a-f]{7,40})$/;
const HASH = /^[0-9a-f]{7,40}$/;
const CORE = new RegExp(`^(${NUM})\\.(${NUM})\\.(${NUM})$`);
const DIRTY_SUFFIX = '-dirty';
/**
 * Longer than any version read anywhere (a stamp keeps to an image tag's 128; a long tag's git
 * description may pass that before it is shortened): a value past it is not a version, whatever
 * it holds, and is refused by its length before any other check reads it.
 */
export const LONGEST_VERSION = 1024;

/**
 * Read a version string into one of the kinds of DESIGN.md rule 2. Never throws: anything that is
 * not a version comes back as `invalid` with a reason. The input is not trimmed: callers that read
 * from files or the environment trim first, so stray whitespace from a server is visible.
 */
export function parseVersion(raw: string): Version {
  if (typeof raw !== 'string') return invalid(String(raw), 'not a string');
  if (raw === 'unknown') return { kind: 'unknown', raw, dirty: false };
  if (raw.trim() === '') return invalid(raw, 'empty');
  if (raw.length > LONGEST_VERSION)
    return invalid(raw, `${raw.length} characters long (a version has at most ${LONGEST_VERSION})`);
  if (/\s/.test(raw)) return invalid(raw, 'contains whitespace');
  if (/[\u0000-\u001f\u007f]/.test(raw)) return invalid(raw, 'contains control characters');

  // `--dirty` appends `-dirty` to whatever describe printed: a tag, a description or a hash.
  const dirty = raw.endsWith(DIRTY_SUFFIX) && raw.length > DIRTY_SUFFIX.length;
  const body = dirty ? raw.slice(0, -DIRTY_SUFFIX.length) : raw;

  // Describe is tried before plain semver: `1.2.3-4-gabcdef0` is also a legal semver prerelease.
  const describe = DESCRIBE.exec(body);
  if (describe) {
    const base = parseSemver(describe[1]!);
    if (base) {
      return {
        kind: 'describe',
        raw,
        dirty,
        ...base,
        baseTag: describe[1]!,
        distance: BigInt(describe[2]!),
        hash: describe[3]!,
      };
    }
  }
  if (HASH.test(body)) return { kind: 'hash', raw, dirty, hash: body };

  const semver = parseSemver(body);
  if (!semver)
    return invalid(raw, 'not a version (expected vX.Y.Z, vX.Y.Z-rc.N, a git description or a hash)');
  const rc = rcNumber(semver.prerelease);
  if (semver.prerelease.length === 0) return { kind: 'release', raw, dirty, ...semver };
  if (rc !== undefined) return { kind: 'rc', raw, dirty, ...semver, rc };
  return { kind: 'prerelease', raw, dirty, ...semver };
}

/** Parse `v?X.Y.Z[-pre][+build]`; build metadata is accepted and ignored, as semver says. */
export function parseSemver(text: string): SemverBase | undefined {
  const m = SEMVER.exec(text);
  if (!m) return undefined;
  const core: Core = { major: BigInt(m[1]!), minor: BigInt(m[2]!), patch: BigInt(m[3]!) };
  const prerelease: PrereleaseId[] = m[4]
    ? m[4].split('.').map((id) => (/^\d+$/.test(id) ? BigInt(id) : id))
    : [];
  return { core, prerelease };
}

/** Parse a strict `X.Y.Z` (the only form `min_cli_version` may take). */
export function parseCore(text: string): Core | undefined {
  const m = CORE.exec(text);
  return m ? { major: BigInt(m[1]!), minor: BigInt(m[2]!), patch: BigInt(m[3]!) } : undefined;
}

function rcNumber(prerelease: PrereleaseId[]): bigint | undefined {
  const [label, n] = prerelease;
  return prerelease.length === 2 && label === 'rc' && typeof n === 'bigint' ? n : undefined;
}

function invalid(raw: string, reason: string): Version {
  return { kind: 'invalid', raw, dirty: false, reason };
}
