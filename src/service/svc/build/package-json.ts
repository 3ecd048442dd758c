import { stripV } from '../../../version/compare.ts';
import { parseVersion } from '../../../version/parse.ts';

/**
 * The npm version for a svc version. npm only takes semver, so release, rc and other semver
 * versions lose their `v`; a git description, a bare hash or `unknown` become a `0.0.0-dev.`
 * prerelease. The real version stays baked into svc.js (and in `serviceVersion`).
 */
export function npmVersionOf(version: string): string {
  const parsed = parseVersion(version);
  if (parsed.kind === 'release' || parsed.kind === 'rc' || parsed.kind === 'prerelease')
    return stripV(version);
  let id = version.replace(/[^0-9A-Za-z-]+/g, '-').replace(/^-+|-+$/g, '') || 'unknown';
  if (/^\d+$/.test(id)) id = `x${id}`; // a numeric identifier may not have leading zeros
  return `0.0.0-dev.${id}`;
}

/** The installed package's manifest: one bundled file, bin `svc`, no dependencies. */
export function cliPackageJson(version: string): Record<string, unknown> {
  return {
    name: 'service-cli',
    version: npmVersionOf(version),
    serviceVersion: version,
    description: "svc, the service's command-line client",
    license: 'MIT',
    // CommonJS on purpose: it starts faster than ESM (see bundle-svc.ts).
    type: 'commonjs',
    bin: { svc: 'svc.js' },
    files: ['svc.js'],
    engines: { node: '>=20.19' },
  };
}
