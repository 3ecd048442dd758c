import type { StagedArtifact } from '../build/stage.ts';
import type { ImageArtifact } from '../config/schema.ts';
import type { StoreImageRef } from '../registry/image-ref.ts';
import type { ImageSpec } from './oci/image-config.ts';

export type EngineName = 'docker' | 'oci';
export const ENGINES: readonly EngineName[] = ['docker', 'oci'];

/** One image to build: what goes in, on what base, and where it goes. */
export interface ImageBuildRequest {
  artifact: ImageArtifact;
  staged: StagedArtifact;
  /** The config the image gets (oci engine; the Dockerfile says the same to docker). */
  spec: ImageSpec;
  /** Docker build args (docker engine): versions, base image, label values. */
  buildArgs: Record<string, string>;
  base: StoreImageRef;
  /** The configured registry (`host[:port][/ns]` or `oci-layout:<dir>`). */
  registry: string;
  /** Repository name within it (`service-api`). */
  repository: string;
  tag: string;
  push: boolean;
}

export interface BuiltImage {
  artifact: ImageArtifact;
  engine: EngineName;
  /** Where the image is: `<registry>/<repository>:<tag>`, or the local docker name when not pushed. */
  reference: string;
  /** Manifest digest, when the image is in a store (always for oci; for docker once pushed). */
  digest?: string;
  /** Docker's image ID (the config digest), docker engine only. */
  imageId?: string;
  /** Whether it was written to the configured registry. */
  pushed: boolean;
  base: { reference: string; digest: string };
}

/** What both engines do: one image per call. */
export interface Engine {
  readonly name: EngineName;
  build(request: ImageBuildRequest, progress: (line: string) => void): Promise<BuiltImage>;
}
