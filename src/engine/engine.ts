import type { ImageArtifact } from '../config/schema.ts';
import type { StoreImageRef } from '../registry/image-ref.ts';

/** One thing to put in a layer. Paths are absolute in the image (`/app/api/main.mjs`). */
export type LayerEntry =
  | { type: 'dir'; path: string; mode?: number }
  | { type: 'file'; path: string; mode?: number; source: string }
  | { type: 'file'; path: string; mode?: number; content: Uint8Array | string }
  | { type: 'symlink'; path: string; target: string };

/** What a build puts on top of its base. */
export interface ImageSpec {
  /** Set over the base's environment (same name replaces). */
  env: Record<string, string>;
  entrypoint?: string[];
  cmd?: string[];
  workingDir?: string;
  user?: string;
  exposedPorts?: string[];
  labels: Record<string, string>;
  /** RFC 3339, from the commit time or SOURCE_DATE_EPOCH; never the clock. */
  created: string;
  /** The history line of the added layer (`created_by`). */
  createdBy: string;
}

/** What the build staged for one image: the engines build or pack it. */
export interface StagedArtifact {
  artifact: ImageArtifact;
  /** The directory: `Dockerfile` and `app/` (the docker build context). */
  dir: string;
  /** The files of `app/` as layer entries under APP_DIR (what the oci engine packs). */
  entries: LayerEntry[];
}

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
