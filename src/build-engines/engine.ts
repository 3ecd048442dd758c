import type { ImageSpec } from '../oci-image/image-config.ts';
import type { LayerEntry } from '../oci-image/layer.ts';
import type { StoreImageRef } from '../registry/image-ref.ts';

export type EngineName = 'docker' | 'oci';
export const ENGINES: readonly EngineName[] = ['docker', 'oci'];

/** What the daemonless engine writes on the base: its layers in order, and the config. */
export interface OciRecipe {
  /** One layer per list (the recipe's files, then the CLI archive for the api). */
  layers: readonly (readonly LayerEntry[])[];
  spec: ImageSpec;
}

/** What the docker engine builds: a context we made, and how to build it. */
export interface DockerRecipe {
  /** The build context as an uncompressed tar (its Dockerfile already stamped: stamp-dockerfile.ts). */
  context: Buffer;
  /** The Dockerfile's path inside the context. */
  dockerfile: string;
  /** The stage to build (the stamped stage over the artifact's target). */
  target: string;
  /** The version variables and the artifact's own `buildArgs` (BASE_IMAGE is added by the engine). */
  buildArgs: Record<string, string>;
  labels: Record<string, string>;
  /** The Dockerfile starts a stage the target needs FROM ${BASE_IMAGE}: load the configured base. */
  usesBaseImage: boolean;
  /** The image the target's stages start from, when not the configured base (`node:20-slim`, `scratch`). */
  rootBase: string | undefined;
  /** `linux/amd64`...; undefined: the engine's own platform. */
  platforms: readonly string[] | undefined;
  /** Secrets by id, from a variable of the build's environment or a file (absolute path). */
  secrets: readonly { id: string; env?: string | undefined; file?: string | undefined }[];
  cache: { from: readonly string[]; to: readonly string[] };
  /** Unset: host where the engine has no bridge network. */
  network: 'host' | 'none' | 'default' | undefined;
}

/** One image to build: what goes in, on what base, and where it goes. */
export interface ImageBuildRequest {
  /** The artifact's name (`api`, `scheduler`). */
  artifact: string;
  /** The engine's recipe; the build step makes the one the chosen engine needs. */
  oci?: OciRecipe;
  docker?: DockerRecipe;
  base: StoreImageRef;
  /** The configured registry (`host[:port][/ns]` or `oci-layout:<dir>`). */
  registry: string;
  /** Repository name within it (`service-api`). */
  repository: string;
  tag: string;
  push: boolean;
}

export interface BuiltImage {
  artifact: string;
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
  /**
   * How many of the image's layers are its base's, when the base is not the configured one (a
   * Dockerfile's own FROM): what the SBOM skips. Unset: the configured base's.
   */
  baseLayers?: number;
  /** What the build found wrong without refusing it (an entrypoint the image lacks). */
  warnings?: string[];
}

/** Time one part of an image's build (`layers`, `write`) so the build can say where time went. */
export type TimePart = <T>(part: string, work: () => Promise<T>) => Promise<T>;

/** What both engines do: one image per call. */
export interface Engine {
  readonly name: EngineName;
  build(request: ImageBuildRequest, progress: (line: string) => void, time?: TimePart): Promise<BuiltImage>;
}
