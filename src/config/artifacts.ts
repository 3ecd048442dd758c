import type { ArtifactConfig, CliArtifactConfig, ImageArtifactConfig } from './artifacts-schema.ts';
import type { ImageRole } from './constants.ts';
import { IMAGE_ROLES } from './constants.ts';
import type { ReleaseConfig } from './schema.ts';

type WithArtifacts = Pick<ReleaseConfig, 'artifacts'>;

/**
 * The image artifacts in a fixed order: api, worker, web (by role), then the extra images by
 * name. Every command that goes over "the images" goes over this list.
 */
export function imageArtifacts(config: WithArtifacts): ImageArtifactConfig[] {
  const images = Object.values(config.artifacts).filter((a): a is ImageArtifactConfig => a.kind === 'image');
  const rank = (a: ImageArtifactConfig) => (a.role ? IMAGE_ROLES.indexOf(a.role) : IMAGE_ROLES.length);
  return images.sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The names of the image artifacts, in the order of `imageArtifacts`. */
export function imageArtifactNames(config: WithArtifacts): string[] {
  return imageArtifacts(config).map((a) => a.name);
}

/** The image artifact with this role, if the config has one (`worker: false` drops it). */
export function artifactWithRole(config: WithArtifacts, role: ImageRole): ImageArtifactConfig | undefined {
  return imageArtifacts(config).find((a) => a.role === role);
}

/** The image artifact called `name`; undefined for the CLI or an unknown name. */
export function imageArtifact(config: WithArtifacts, name: string): ImageArtifactConfig | undefined {
  const found: ArtifactConfig | undefined = config.artifacts[name];
  return found?.kind === 'image' ? found : undefined;
}

/** The CLI artifact, if any. */
export function cliArtifact(config: WithArtifacts): CliArtifactConfig | undefined {
  return Object.values(config.artifacts).find((a): a is CliArtifactConfig => a.kind === 'cli');
}

/** The image repository of a role, else the spec's default name (`service-worker`). */
export function imageOfRole(config: WithArtifacts, role: ImageRole): string {
  return artifactWithRole(config, role)?.image ?? `service-${role}`;
}
