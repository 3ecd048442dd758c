import type { ReleaseConfigInput } from './schema.ts';

/** Typed identity for `release.config.ts`: `export default defineConfig({ ... })`. */
export function defineConfig(config: ReleaseConfigInput): ReleaseConfigInput {
  return config;
}
