import { fileURLToPath } from 'node:url';
import { InternalError } from '../../../errors.ts';

const ENTRIES = {
  api: fileURLToPath(new URL('../main.ts', import.meta.url)),
  worker: fileURLToPath(new URL('../../worker/main.ts', import.meta.url)),
} as const;

/**
 * Bundle the reference API or worker into one ESM file that runs on plain Node (no tsx, no
 * node_modules). ESM matters: the entry finds its own directory (version resolution, the CLI
 * archive beside it) through `import.meta.url`, which a CommonJS bundle would lose.
 */
export async function bundleService(options: {
  artifact: keyof typeof ENTRIES;
  outFile: string;
}): Promise<void> {
  const { build } = await import('esbuild');
  try {
    await build({
      entryPoints: [ENTRIES[options.artifact]],
      outfile: options.outFile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      legalComments: 'none',
      logLevel: 'silent',
    });
  } catch (error) {
    throw new InternalError('BUNDLE_FAILED', `cannot bundle the ${options.artifact}: ${String(error)}`, {
      hint: 'run `npx tsc --noEmit` to find the error in the sources',
      cause: error,
    });
  }
}
