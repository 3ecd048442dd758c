import type { ArtifactConfig, CliArtifactConfig, ImageArtifactConfig } from './artifacts-schema.ts';
import type { ImageRole } from './constants.ts';
import { roleOrder } from './role-order.ts';
import type { ReleaseConfig } from './schema.ts';

type WithArtifacts = Pick<ReleaseConfig, 'artifacts'>;

/**
 * The image artifacts in a fixed order: api, worker, web (by role), then the extra images by
 * name. Every command that goes over "the images" goes over this list.
 */
export function imageArtifacts(config: WithArtifacts): ImageArtifactConfig[] {
  const images = Object.values(config.artifacts).filter((a): a is ImageArtifactConfig => a.kind === 'image');
  return images.sort(roleOrder);
}

/**
 * The image artifacts that build an image, one per image: what build, sign, attest, promote,
 * re-version and mirror go over (a role run from another artifact's image is not among them).
 */
export function builtImageArtifacts(config: WithArtifacts): ImageArtifactConfig[] {
  return imageArtifacts(config).filter((a) => a.roleOf === undefined);
}

/** Every image artifact that runs `image` (its builder first): the roles verify, watch and upgrade read. */
export function rolesOfImage(config: WithArtifacts, image: string): ImageArtifactConfig[] {
  return imageArtifacts(config)
    .filter((a) => a.image === image)
    .sort((a, b) => Number(a.roleOf !== undefined) - Number(b.roleOf !== undefined));
}

/** One image of the release, counted once: the artifact that builds it and every artifact that runs it. */
export interface ImageWithRoles {
  /** The artifact that builds the image: the name the release set, signatures and summaries use. */
  artifact: string;
  repository: string;
  /** Every artifact run from this image, the builder first (`api, worker, scheduler`). */
  roles: string[];
}

/**
 * The images a release is judged by, each once, with the roles that run it: what the release set,
 * signatures, attestations, mirror and summaries count (one image run as api, worker and scheduler
 * is one image, its three roles named).
 */
export function imagesWithRoles(config: WithArtifacts): ImageWithRoles[] {
  return builtImageArtifacts(config).map((a) => ({
    artifact: a.name,
    repository: a.image,
    roles: rolesOfImage(config, a.image).map((r) => r.name),
  }));
}

/** The artifact that builds the image `artifact` runs: itself, or the one it is a role of. */
export function builderOf(config: WithArtifacts, artifact: ImageArtifactConfig): ImageArtifactConfig {
  const builder = artifact.roleOf ? config.artifacts[artifact.roleOf] : undefined;
  return builder?.kind === 'image' ? builder : artifact;
}

/** The CLI the config declares (not the default of a config that names none): what verify checks. */
export function declaredCliArtifact(config: WithArtifacts): CliArtifactConfig | undefined {
  const cli = cliArtifact(config);
  return cli?.implicit ? undefined : cli;
}

/** The names of the image artifacts, in the order of `imageArtifacts`. */
export function imageArtifactNames(config: WithArtifacts): string[] {
  return imageArtifacts(config).map((a) => a.name);
}

/**
 * The image artifact with this role, if the config has one (`worker: false` drops it); of several
 * workers (a worker and a scheduler), the one named for the role, else the first by name.
 */
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

/**
 * Whether the service has a web client to check: one the config declares, or the default of a
 * config that declares no image at all (the reference service's shape). `web: false`, or images
 * declared without a web, mean none: verify and watch then show no web row unless asked to read
 * one (`--web-url`), as for a CLI the config does not declare.
 */
export function hasWebClient(config: WithArtifacts): boolean {
  return webClients(config).length > 0;
}

/**
 * The web clients to check, in image order: every artifact with the `web` role (an app and an
 * admin dashboard are two, each its own image at its own URL), or the default web of a config
 * that declares no image at all; none when images are declared without a web.
 */
export function webClients(config: WithArtifacts): ImageArtifactConfig[] {
  const webs = imageArtifacts(config).filter((a) => a.role === 'web');
  const declared = webs.filter((a) => !a.implicit);
  if (declared.length > 0) return declared;
  return imageArtifacts(config).every((a) => a.implicit) ? webs : [];
}

/** The image repository of a role, else the spec's default name (`service-worker`). */
export function imageOfRole(config: WithArtifacts, role: ImageRole): string {
  return artifactWithRole(config, role)?.image ?? `service-${role}`;
}

/**
 * Whether the CLI archive goes into this image: an api that asks for it (`serveCli: true`, or a
 * `cliArchive` path), never by default (DESIGN.md "Artifacts are data": nothing of ours in a
 * service's image unasked).
 */
export function servesCli(artifact: ImageArtifactConfig): boolean {
  if (artifact.role !== 'api') return false;
  return artifact.serveCli ?? artifact.cliArchive !== undefined;
}
