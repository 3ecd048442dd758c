import { join } from 'node:path';
import { packageRoot } from '../../../files/package-root.ts';

/** The toolkit's root, so esbuild's output never depends on where the build was started. */
const PACKAGE_ROOT = packageRoot();
/** Always the TypeScript source, also when this module runs compiled from lib/. */
const ENTRY = join(PACKAGE_ROOT, 'src/service/svc/main.ts');

export interface BundleOptions {
  /**
   * The version `svc --version` prints. Not part of the code: svc reads it from `serviceVersion`
   * in the package.json beside it (see ../version.ts), so every version gets the same svc.js.
   */
  version?: string;
  outFile: string;
  /** The upgrade command the gate prints (`{url}` for the archive URL); default the npm form. */
  installCommand?: string;
  /** SPKI PEM of the release signing key: `svc update` checks archives against it. */
  publicKeyPem?: string;
}

/**
 * Bundle the svc CLI into one file (esbuild). The file needs nothing at run time but Node itself
 * and its package.json, which carries the baked version: no node_modules, no tsx.
 *
 * CommonJS rather than ESM, measured: `svc --version` must cost at most 15% more than `node -e 0`,
 * and Node's ESM loader alone costs about 10% (an empty ESM file vs an empty CommonJS one), while
 * esbuild's ESM output also hoists every `import 'node:x'` of the whole bundle to the top of the
 * file, loading http, child_process, crypto... before `--version` prints. In CommonJS output each
 * `require('node:x')` stays inside the lazily initialised module that needs it.
 */
export async function bundleSvc(options: BundleOptions): Promise<void> {
  const { build } = await import('esbuild');
  await build({
    absWorkingDir: PACKAGE_ROOT,
    entryPoints: [ENTRY],
    outfile: options.outFile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    banner: { js: '#!/usr/bin/env node' },
    define: {
      __SVC_BUNDLED__: 'true',
      ...(options.installCommand ? { __SVC_INSTALL_COMMAND__: JSON.stringify(options.installCommand) } : {}),
      // Only `svc update` reads it (update/baked-key.ts), so --version and the gate never touch it.
      __SVC_PUBLIC_KEY__: JSON.stringify(options.publicKeyPem ?? ''),
    },
  });
}
