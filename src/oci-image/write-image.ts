import { ExternalError } from '../errors.ts';
import { type Descriptor, type ImageStore, MEDIA_TYPES } from '../registry/store.ts';
import type { BaseImage } from './base-image-reader.ts';
import { composeConfig, composeManifest, type ImageSpec, type OciImageConfig } from './image-config.ts';
import { type Layer, sha256 } from './layer.ts';

export interface WrittenImage {
  /** Manifest digest: what the record, promote and verify go by. */
  digest: string;
  size: number;
  mediaType: string;
  configDigest: string;
}

/**
 * Write a complete image: layer blobs, config blob, then the manifest under each tag (blobs first,
 * so a tag never points at a manifest whose blobs are missing). Returns the manifest's digest.
 */
export async function putImage(options: {
  store: ImageStore;
  repository: string;
  tags: readonly string[];
  /** The config, or its exact bytes when they come from elsewhere (a docker save) and must stay. */
  config: OciImageConfig | Uint8Array;
  /** Layers already in the store (from the base) by descriptor, new ones with their bytes. */
  layers: readonly (Descriptor | Layer)[];
  annotations?: Record<string, string>;
  /** Also store the manifest under its digest: a platform image an index will name, with no tag of its own. */
  byDigest?: boolean;
}): Promise<WrittenImage> {
  const { store, repository } = options;
  const descriptors: Descriptor[] = [];
  for (const layer of options.layers) {
    if ('bytes' in layer) {
      await putBlobOnce(store, repository, layer.digest, layer.bytes);
      descriptors.push({ mediaType: MEDIA_TYPES.ociLayerGzip, digest: layer.digest, size: layer.size });
    } else {
      descriptors.push(layer);
    }
  }
  const configBytes =
    options.config instanceof Uint8Array ? options.config : Buffer.from(JSON.stringify(options.config));
  const configDigest = sha256(configBytes);
  await putBlobOnce(store, repository, configDigest, configBytes);
  const manifest = composeManifest(
    { mediaType: MEDIA_TYPES.ociConfig, digest: configDigest, size: configBytes.length },
    descriptors,
    options.annotations,
  );
  const bytes = Buffer.from(JSON.stringify(manifest));
  const digest = sha256(bytes);
  for (const tag of [...options.tags, ...(options.byDigest ? [digest] : [])]) {
    const written = await store.putManifest(repository, tag, bytes, MEDIA_TYPES.ociManifest);
    if (written.digest !== digest) {
      throw new ExternalError(
        'IMAGE_DIGEST_MISMATCH',
        `${store.name} stored ${repository}:${tag} as ${written.digest}, expected ${digest}`,
        {
          hint: 'the store changed the manifest; check that it is an OCI-compliant registry or layout',
        },
      );
    }
  }
  return { digest, size: bytes.length, mediaType: MEDIA_TYPES.ociManifest, configDigest };
}

/**
 * Build an image on top of `base`: the base's layers are made available in the target repository
 * (mounted within one store, copied across stores), the new layers go on top, and the config is
 * the base's with `spec` applied.
 */
export async function buildOnBase(options: {
  store: ImageStore;
  repository: string;
  tags: readonly string[];
  base: BaseImage;
  layers: readonly Layer[];
  spec: ImageSpec;
  /** Repositories of `store` that may hold the base's layers already (images built before). */
  mountFrom?: readonly string[];
}): Promise<WrittenImage> {
  const { store, repository, base } = options;
  for (const layer of base.layers)
    await copyBlob(base, store, repository, layer.digest, options.mountFrom ?? []);
  const config = composeConfig(
    base.config,
    options.spec,
    options.layers.map((layer) => layer.diffId),
  );
  return putImage({
    store,
    repository,
    tags: options.tags,
    config,
    layers: [...base.layers, ...options.layers],
    annotations: {
      'org.opencontainers.image.base.digest': base.digest,
      'org.opencontainers.image.base.name': base.name,
    },
  });
}

async function putBlobOnce(store: ImageStore, repository: string, digest: string, bytes: Uint8Array) {
  if (!(await store.hasBlob(repository, digest))) await store.putBlob(repository, digest, bytes);
}

async function copyBlob(
  base: BaseImage,
  store: ImageStore,
  repository: string,
  digest: string,
  mountFrom: readonly string[],
) {
  if (await store.hasBlob(repository, digest)) return;
  if (base.store === store && store.mountBlob && (await store.mountBlob(base.repository, repository, digest)))
    return;
  // Copied (and checked) into another repository of this store already: mount it from there
  // rather than read, hash and write the base's largest blob once more per image.
  for (const from of mountFrom)
    if (from !== repository && store.mountBlob && (await store.mountBlob(from, repository, digest))) return;
  await store.putBlob(repository, digest, await base.store.getBlob(base.repository, digest));
}
