import { packageVersionOf } from '../../../version/package-version.ts';

/** The npm version for a svc version: see version/package-version.ts (one mapping for build and publish). */
export const npmVersionOf = packageVersionOf;

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
