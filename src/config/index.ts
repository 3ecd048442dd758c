export {
  artifactWithRole,
  builderOf,
  builtImageArtifacts,
  cliArtifact,
  declaredCliArtifact,
  type ImageWithRoles,
  imageArtifact,
  imageArtifactNames,
  imageArtifacts,
  imageOfRole,
  imagesWithRoles,
  rolesOfImage,
} from './artifacts.ts';
export type {
  ArtifactConfig,
  CliArtifactConfig,
  ImageArtifactConfig,
} from './artifacts-schema.ts';
export type { ImageRole } from './constants.ts';
export { defineConfig } from './define-config.ts';
export { type LoadedConfig, loadConfig } from './load.ts';
export {
  configSchema,
  type ImageArtifact,
  isRegistryReference,
  OCI_LAYOUT_PREFIX,
  type ReleaseConfig,
  type ReleaseConfigInput,
} from './schema.ts';
export { formatIssues, validateConfig } from './validate.ts';
export {
  CLIENT_VERSION_VARIABLE,
  clientVersionVariables,
  SERVER_VERSION_VARIABLE,
  serverVersionVariables,
  type VersionVariables,
  versionEnv,
} from './version-variables.ts';
