import { join } from 'node:path';
import type { InlineConfig } from 'vite';
import { packageRoot } from '../../../files/package-root.ts';
import { serviceVersionPlugin } from './version-plugin.ts';

/** The web client's sources: index.html and app/ live here (always the TypeScript sources). */
export const WEB_SOURCE_DIR = join(packageRoot(), 'src/service/web');

/**
 * The one Vite configuration of the web client, shared by `vite.config.ts` (vite dev/build) and
 * `buildWeb` (the build scripts and `release build`), so both produce the same output.
 */
export function webViteConfig(version: string, outDir: string): InlineConfig {
  return {
    configFile: false,
    root: WEB_SOURCE_DIR,
    // Relative asset URLs: the folder works from any static server and under any path prefix.
    base: './',
    publicDir: false,
    // The version comes only from the validated argument, never from stray .env files.
    envDir: false,
    logLevel: 'warn',
    plugins: [serviceVersionPlugin(version)],
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      reportCompressedSize: false,
    },
  };
}
