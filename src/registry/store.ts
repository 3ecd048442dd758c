/**
 * One interface over where images live: an OCI distribution registry, or an OCI image layout on
 * disk (the embedded default). Promotion, build, signing and verify talk only to this.
 *
 * `repository` is the image's repository name within the store (`service-api`), never a full
 * reference; the store knows its own host, namespace or directory.
 */
export interface Descriptor {
  mediaType: string;
  /** `sha256:<64 hex>` */
  digest: string;
  size: number;
  artifactType?: string;
  annotations?: Record<string, string>;
  platform?: { architecture: string; os: string; variant?: string };
}

export interface Manifest {
  descriptor: Descriptor;
  /** The exact bytes: digests are over these, so they are never re-serialised. */
  bytes: Uint8Array;
}

export interface ImageStore {
  /** For messages: the registry host and namespace or the layout directory; never credentials. */
  readonly name: string;
  /**
   * How images of this store are pulled (`host[:port][/namespace]`), for a registry; a layout has
   * none. Signatures in cosign's format name the image by it, as `cosign sign` does.
   */
  readonly pullPrefix?: string;
  /** A manifest by tag or digest; undefined when it does not exist. */
  getManifest(repository: string, reference: string): Promise<Manifest | undefined>;
  /** Just the descriptor (digest, media type, size) of a tag or digest; undefined when absent. */
  resolve(repository: string, reference: string): Promise<Descriptor | undefined>;
  /** Store manifest bytes under a tag or their digest; checks the stored digest matches. */
  putManifest(
    repository: string,
    reference: string,
    bytes: Uint8Array,
    mediaType: string,
  ): Promise<Descriptor>;
  /** Remove a tag (layout) or manifest (registry, by digest) — used to undo, never to release. */
  deleteTag?(repository: string, tag: string): Promise<void>;
  hasBlob(repository: string, digest: string): Promise<boolean>;
  /**
   * A blob's bytes. With `maxBytes`, a blob larger than that is refused before it is read whole
   * (a registry's body is cut while it streams): for small documents (configs, bundles) a hostile
   * store could otherwise make endless.
   */
  getBlob(repository: string, digest: string, maxBytes?: number): Promise<Uint8Array>;
  putBlob(repository: string, digest: string, bytes: Uint8Array): Promise<void>;
  /**
   * Stream a blob into a local file, unchecked (the caller hashes the file): large layers then
   * never sit in memory. Stores without it are read with `getBlob`.
   */
  readBlobTo?(repository: string, digest: string, path: string): Promise<void>;
  /** Store a blob from a local file whose digest the caller checked, streamed (memory flat). */
  writeBlobFrom?(repository: string, digest: string, path: string): Promise<void>;
  /** Make a blob of another repository of this store available here without copying bytes. */
  mountBlob?(fromRepository: string, toRepository: string, digest: string): Promise<boolean>;
  listTags(repository: string): Promise<string[]>;
  /** Manifests whose `subject` is `digest` (OCI 1.1 referrers, with the tag-schema fallback). */
  referrers?(repository: string, digest: string): Promise<Descriptor[]>;
  /** Where promotions into this store keep their journals (stores opened by `openStore`). */
  readonly journalDir?: string;
}

export const MEDIA_TYPES = {
  ociManifest: 'application/vnd.oci.image.manifest.v1+json',
  ociIndex: 'application/vnd.oci.image.index.v1+json',
  dockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  dockerManifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  ociConfig: 'application/vnd.oci.image.config.v1+json',
  ociLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  ociEmpty: 'application/vnd.oci.empty.v1+json',
} as const;

/** Send all four so a registry never converts a manifest (and so never changes its digest). */
export const MANIFEST_ACCEPT = [
  MEDIA_TYPES.ociManifest,
  MEDIA_TYPES.ociIndex,
  MEDIA_TYPES.dockerManifest,
  MEDIA_TYPES.dockerManifestList,
].join(', ');
