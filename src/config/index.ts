export { defineConfig } from './define-config.ts';
export { type LoadedConfig, loadConfig } from './load.ts';
export {
  configSchema,
  IMAGE_ARTIFACTS,
  type ImageArtifact,
  isRegistryReference,
  OCI_LAYOUT_PREFIX,
  type ReleaseConfig,
  type ReleaseConfigInput,
} from './schema.ts';
export { formatIssues, validateConfig } from './validate.ts';
