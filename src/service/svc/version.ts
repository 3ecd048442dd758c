// Replaced by esbuild's `define` when the archive is built (see build/bundle-svc.ts). Run from a
// checkout through tsx nothing defines it, so the CLI honestly reports `unknown` (spec section 2).
declare const __SVC_VERSION__: string | undefined;

/** The version baked into this build of `svc`; `unknown` in a development checkout. */
export const SVC_VERSION: string = typeof __SVC_VERSION__ === 'string' ? __SVC_VERSION__ : 'unknown';

// The project's `artifacts.cli.installCommand` (a template with `{url}`), baked in the same way.
declare const __SVC_INSTALL_COMMAND__: string | undefined;

/** The upgrade command the gate prints, `{url}` standing for the archive's download URL. */
export const SVC_INSTALL_COMMAND: string =
  typeof __SVC_INSTALL_COMMAND__ === 'string' ? __SVC_INSTALL_COMMAND__ : 'npm install -g {url}';
