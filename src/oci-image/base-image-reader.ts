import { ExternalError } from '../errors.ts';
import { ARCHIVE_PREFIXES, type StoreImageRef } from '../registry/image-ref.ts';
import { type Descriptor, type ImageStore, MEDIA_TYPES } from '../registry/store.ts';
import { openArchiveBase } from './archive-store.ts';
import { type OciImageConfig, ociLayerMediaType } from './image-config.ts';

/** A base image as read from a store: what a build on top of it needs. */
export interface BaseImage {
  store: ImageStore;
  repository: string;
  /** The reference as the user wrote it (for the `base.name` annotation and messages). */
  name: string;
  /** Digest of the single-platform manifest used. */
  digest: string;
  layers: Descriptor[];
  config: OciImageConfig;
  /** Digest of the config blob: Docker's image ID for the same image. */
  configDigest: string;
}

const INDEXES: string[] = [MEDIA_TYPES.ociIndex, MEDIA_TYPES.dockerManifestList];

/**
 * Read a base image's manifest and config. A multi-platform index is narrowed to `platform`
 * (linux and this machine's architecture by default); Docker layer media types are mapped to
 * their OCI names, since the bytes are the same.
 */
export async function readBaseImage(
  store: ImageStore,
  repository: string,
  reference: string,
  name: string,
  platform = { os: 'linux', architecture: goArch(process.arch) },
): Promise<BaseImage> {
  let manifest = await store.getManifest(repository, reference);
  if (!manifest) {
    throw new ExternalError('BASE_IMAGE_MISSING', `base image ${name} was not found in ${store.name}`, {
      hint: 'make it with `release base-image` (node and its libraries from this machine), or set artifacts.<name>.base to an image you have',
    });
  }
  if (INDEXES.includes(manifest.descriptor.mediaType)) {
    const index = parse<{ manifests: Descriptor[] }>(manifest.bytes);
    const match = index.manifests.find(
      (m) => m.platform?.os === platform.os && m.platform?.architecture === platform.architecture,
    );
    if (!match) {
      throw new ExternalError(
        'BASE_IMAGE_PLATFORM',
        `base image ${name} has no ${platform.os}/${platform.architecture} manifest`,
        {
          hint: 'use a base image built for this platform',
        },
      );
    }
    manifest = await store.getManifest(repository, match.digest);
    if (!manifest)
      throw new ExternalError('BASE_IMAGE_MISSING', `base image ${name}: ${match.digest} is missing`);
  }
  const body = parse<{ config: Descriptor; layers: Descriptor[] }>(manifest.bytes);
  const config = parse<OciImageConfig>(await store.getBlob(repository, body.config.digest));
  return {
    store,
    repository,
    name,
    digest: manifest.descriptor.digest,
    layers: body.layers.map((layer) => ({
      mediaType: ociLayerMediaType(layer.mediaType),
      digest: layer.digest,
      size: layer.size,
    })),
    config,
    configDigest: body.config.digest,
  };
}

/** Node's `process.arch` in the GOARCH spelling image configs use. */
export function goArch(arch: string): string {
  return (
    (
      { x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' } as Record<
        string,
        string
      >
    )[arch] ?? arch
  );
}

function parse<T>(bytes: Uint8Array): T {
  return JSON.parse(Buffer.from(bytes).toString('utf8')) as T;
}

/**
 * The base a reference names, opened where it lives: a registry or layout through `open`, or a
 * file (`oci-archive:`, `docker-archive:`, registry/image-ref.ts parseBaseImageRef) unpacked for
 * the build. `close` removes what the file was unpacked into.
 */
export async function openBaseImage(
  ref: StoreImageRef,
  open: (store: string) => ImageStore,
): Promise<{ base: BaseImage; close: () => Promise<void> }> {
  const archive = ARCHIVE_PREFIXES.find((prefix) => ref.store.startsWith(prefix));
  if (!archive)
    return {
      base: await readBaseImage(open(ref.store), ref.repository, ref.reference, ref.text),
      close: async () => {},
    };
  const file = await openArchiveBase(ref.store.slice(archive.length), ref.reference, ref.text);
  try {
    return { base: await readBaseImage(file.store, '', file.digest, ref.text), close: file.close };
  } catch (error) {
    await file.close();
    throw error;
  }
}
