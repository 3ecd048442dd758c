import { readFileSync } from 'node:fs';

// Set to `true` by esbuild's `define` when the archive is built (see build/bundle-svc.ts). Run
// from a checkout through tsx nothing defines it, so the CLI honestly reports `unknown` (spec
// section 2).
declare const __SVC_BUNDLED__: boolean | undefined;

/**
 * The version baked into this build of `svc`; `unknown` in a development checkout.
 *
 * The bundle reads it from `serviceVersion` in the package.json beside svc.js rather than having
 * it inlined in the code: a release made from an rc re-stamps only that small file
 * (cli-package/restamp-archive.ts), so svc.js stays byte-identical to the tested rc's. node:fs is
 * loaded by Node before any user code runs, and one small synchronous read keeps `--version` fast.
 */
export const SVC_VERSION: string = typeof __SVC_BUNDLED__ === 'boolean' ? bakedVersion() : 'unknown';

function bakedVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(`${__dirname}/package.json`, 'utf8')) as {
      name?: unknown;
      serviceVersion?: unknown;
    };
    // Someone else's package.json (svc.js copied out of its package) bakes nothing in.
    if (manifest.name !== 'service-cli') return 'unknown';
    const version = manifest.serviceVersion;
    return typeof version === 'string' && version.trim() ? version.trim() : 'unknown';
  } catch {
    return 'unknown';
  }
}

// The project's `artifacts.cli.installCommand` (a template with `{url}`), baked in the same way.
declare const __SVC_INSTALL_COMMAND__: string | undefined;

/** The upgrade command the gate prints, `{url}` standing for the archive's download URL. */
export const SVC_INSTALL_COMMAND: string =
  typeof __SVC_INSTALL_COMMAND__ === 'string' ? __SVC_INSTALL_COMMAND__ : 'npm install -g {url}';
