import { parseVersion } from './parse.ts';

/**
 * The npm version of a CLI on its own version line (`cli.version: 'own'`), pure: the core its
 * package declares (`0.31.3`) on the channel the service's version is in:
 *
 * - a release of the service: the core (`0.31.3`);
 * - an rc: the rc's number on the CLI's core (`2026.7.0-rc.2` -> `0.31.3-rc.2`);
 * - another prerelease: its identifiers (`2026.7.0-beta.1` -> `0.31.3-beta.1`);
 * - a git description: a unique dev prerelease (`2026.6.0-3-gabc1234` -> `0.31.3-dev.3.gabc1234`);
 * - a hash or `unknown`: `0.31.3-dev.<id>`.
 *
 * Undefined when `declared` has no X.Y.Z core (not a semver package version).
 */
export function ownPackageVersion(declared: string, serviceVersion: string): string | undefined {
  const own = parseVersion(declared.trim());
  if (!('core' in own)) return undefined;
  const core = `${own.core.major}.${own.core.minor}.${own.core.patch}`;
  const service = parseVersion(serviceVersion);
  const dirty = service.dirty ? '.dirty' : '';
  switch (service.kind) {
    case 'release':
      return service.dirty ? `${core}-dev.dirty` : core;
    case 'rc':
      return `${core}-rc.${service.rc}${dirty}`;
    case 'prerelease':
      return `${core}-${service.prerelease.join('.')}${dirty}`;
    case 'describe':
      return `${core}-dev.${service.distance}.g${service.hash}${dirty}`;
    default: {
      let id = serviceVersion.replace(/[^0-9A-Za-z-]+/g, '-').replace(/^-+|-+$/g, '') || 'unknown';
      if (/^\d+$/.test(id)) id = `x${id}`; // a numeric identifier may not have leading zeros
      return `${core}-dev.${id}`;
    }
  }
}
