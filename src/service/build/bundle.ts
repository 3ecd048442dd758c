import { join } from 'node:path';
import { InternalError } from '../../errors.ts';
import { packageRoot } from '../../files/package-root.ts';

/** The toolkit's own root: bundles are made from its sources, whatever project --cwd names. */
const PACKAGE_ROOT = packageRoot();

const ENTRIES = {
  api: { file: 'src/service/api/main.ts' },
  worker: { file: 'src/service/worker/main.ts' },
  // The web server module exports main() (its bin shim calls it); the bundle needs a caller.
  web: {
    file: 'src/service/web/server/main.ts',
    contents: "import { main } from './main.ts';\nprocess.exitCode = await main(process.env);\n",
  },
} as const;

/**
 * Bundle the reference API, worker or web static server into one ESM file that runs on plain
 * node (no tsx, no node_modules). The working directory esbuild sees is pinned to the toolkit's
 * root so the path comments in the output, and so the image digest, do not depend on where
 * `release build` was started from.
 */
export async function bundleArtifact(artifact: keyof typeof ENTRIES, outFile: string): Promise<void> {
  const { build } = await import('esbuild');
  const entry: { file: string; contents?: string } = ENTRIES[artifact];
  const absolute = join(PACKAGE_ROOT, entry.file);
  try {
    await build({
      ...(entry.contents
        ? {
            stdin: {
              contents: entry.contents,
              resolveDir: absolute.replace(/\/[^/]+$/, ''),
              sourcefile: `${artifact}-entry.ts`,
              loader: 'ts',
            },
          }
        : { entryPoints: [absolute] }),
      absWorkingDir: PACKAGE_ROOT,
      outfile: outFile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      legalComments: 'none',
      logLevel: 'silent',
      // Some CommonJS dependency may call require(); an ESM bundle has none without this.
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
      },
    });
  } catch (error) {
    throw new InternalError('BUNDLE_FAILED', `cannot bundle the ${artifact}: ${String(error)}`, {
      hint: 'run `npx tsc --noEmit` to find the error in the sources',
      cause: error,
    });
  }
}
