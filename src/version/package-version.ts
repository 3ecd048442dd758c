import { stripV } from './compare.ts';
import { parseVersion } from './parse.ts';

/**
 * The npm version of the `service-cli` package for a svc version (pure). npm takes only semver:
 *
 * - release, rc and other semver versions lose their `v` (`v1.4.0-rc.2` -> `1.4.0-rc.2`);
 * - a git description becomes a prerelease that npm orders after its tag and before the next
 *   version: `v1.4.0-3-gabc1234` -> `1.4.1-dev.3.gabc1234` (after 1.4.0, before 1.4.1 and its rcs,
 *   and after `-dev.2.`); after a prerelease tag it extends that prerelease:
 *   `v2.0.0-rc.1-3-gabc1234` -> `2.0.0-rc.1.dev.3.gabc1234` (after rc.1, before rc.2); a dirty
 *   tree adds `.dirty`;
 * - a bare hash or `unknown` (no tag reachable) becomes `0.0.0-dev.<id>`.
 *
 * The real version stays baked into the package (`serviceVersion`, what `svc --version` prints).
 */
export function packageVersionOf(version: string): string {
  const parsed = parseVersion(version);
  if (parsed.kind === 'release' || parsed.kind === 'rc' || parsed.kind === 'prerelease')
    return stripV(version);
  if (parsed.kind === 'describe') {
    const { major, minor, patch } = parsed.core;
    const dirty = parsed.dirty ? '.dirty' : '';
    const build = `dev.${parsed.distance}.g${parsed.hash}${dirty}`;
    if (parsed.prerelease.length === 0) return `${major}.${minor}.${patch + 1n}-${build}`;
    return `${major}.${minor}.${patch}-${parsed.prerelease.join('.')}.${build}`;
  }
  let id = version.replace(/[^0-9A-Za-z-]+/g, '-').replace(/^-+|-+$/g, '') || 'unknown';
  if (/^\d+$/.test(id)) id = `x${id}`; // a numeric identifier may not have leading zeros
  return `0.0.0-dev.${id}`;
}
