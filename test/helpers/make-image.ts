import { randomBytes } from 'node:crypto';
import { sha256Digest } from '../../src/registry/digest.ts';
import { type Descriptor, type ImageStore, MEDIA_TYPES } from '../../src/registry/store.ts';

const LAYER_TAR = 'application/vnd.oci.image.layer.v1.tar';

/** A tiny but valid image: an uncompressed tar layer (one file of random bytes) and a config. */
export interface TestImage {
  manifest: Uint8Array;
  descriptor: Descriptor;
  /** Every blob the manifest refers to (config and layers). */
  blobs: { digest: string; bytes: Uint8Array }[];
}

export interface MakeImageOptions {
  /** Bytes of random content in the single layer (default 1 KiB). */
  size?: number;
  architecture?: string;
  /** Extra label, so two otherwise equal images differ. */
  label?: string;
  /** More config labels (`org.opencontainers.image.version`, so a release can re-stamp it). */
  labels?: Record<string, string>;
}

/** Make a random single-layer OCI image in memory. */
export function makeImage(options: MakeImageOptions = {}): TestImage {
  const layer = tarOf('payload.bin', randomBytes(options.size ?? 1024));
  const layerDigest = sha256Digest(layer);
  const architecture = options.architecture ?? 'amd64';
  const config = json({
    architecture,
    os: 'linux',
    config: { Labels: { 'test.label': options.label ?? randomBytes(4).toString('hex'), ...options.labels } },
    rootfs: { type: 'layers', diff_ids: [layerDigest] },
  });
  const configDigest = sha256Digest(config);
  const manifest = json({
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.ociManifest,
    config: { mediaType: MEDIA_TYPES.ociConfig, digest: configDigest, size: config.length },
    layers: [{ mediaType: LAYER_TAR, digest: layerDigest, size: layer.length }],
  });
  return {
    manifest,
    descriptor: {
      mediaType: MEDIA_TYPES.ociManifest,
      digest: sha256Digest(manifest),
      size: manifest.length,
      platform: { architecture, os: 'linux' },
    },
    blobs: [
      { digest: configDigest, bytes: config },
      { digest: layerDigest, bytes: layer },
    ],
  };
}

/** An OCI index over several images (a multi-architecture image). */
export function makeIndex(images: TestImage[]): {
  manifest: Uint8Array;
  digest: string;
  images: TestImage[];
} {
  const manifest = json({
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.ociIndex,
    manifests: images.map((i) => i.descriptor),
  });
  return { manifest, digest: sha256Digest(manifest), images };
}

/** Push an image's blobs and manifest, tagged when `tag` is given; returns the digest. */
export async function pushImage(store: ImageStore, repository: string, image: TestImage, tag?: string) {
  for (const blob of image.blobs) {
    if (!(await store.hasBlob(repository, blob.digest)))
      await store.putBlob(repository, blob.digest, blob.bytes);
  }
  await store.putManifest(
    repository,
    tag ?? image.descriptor.digest,
    image.manifest,
    MEDIA_TYPES.ociManifest,
  );
  return image.descriptor.digest;
}

/** Push every child image of an index, then the index itself. */
export async function pushIndex(
  store: ImageStore,
  repository: string,
  index: ReturnType<typeof makeIndex>,
  tag?: string,
) {
  for (const image of index.images) await pushImage(store, repository, image);
  await store.putManifest(repository, tag ?? index.digest, index.manifest, MEDIA_TYPES.ociIndex);
  return index.digest;
}

/**
 * Push every child image of an index, then the index as a Docker manifest list (what buildx pushes
 * with the docker media types): it carries no annotations. Returns its digest.
 */
export async function pushManifestList(
  store: ImageStore,
  repository: string,
  index: ReturnType<typeof makeIndex>,
): Promise<string> {
  for (const image of index.images) await pushImage(store, repository, image);
  const manifest = JSON.parse(Buffer.from(index.manifest).toString('utf8'));
  const bytes = json({ ...manifest, mediaType: MEDIA_TYPES.dockerManifestList });
  const digest = sha256Digest(bytes);
  await store.putManifest(repository, digest, bytes, MEDIA_TYPES.dockerManifestList);
  return digest;
}

function json(value: unknown): Uint8Array {
  return Buffer.from(JSON.stringify(value));
}

/** A ustar archive holding one regular file (what a real image layer is, uncompressed). */
function tarOf(name: string, content: Uint8Array): Uint8Array {
  const header = Buffer.alloc(512);
  header.write(name, 0, 100, 'utf8');
  header.write('0000644\0', 100);
  header.write('0000000\0', 108);
  header.write('0000000\0', 116);
  header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124);
  header.write('00000000000\0', 136);
  header.write('        ', 148); // checksum field counts as spaces while summing
  header.write('0', 156);
  header.write('ustar\0', 257);
  header.write('00', 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
  const padding = (512 - (content.length % 512)) % 512;
  return Buffer.concat([header, content, Buffer.alloc(padding), Buffer.alloc(1024)]);
}
