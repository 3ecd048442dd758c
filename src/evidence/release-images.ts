import { basename, posix } from 'node:path';
import { readTar } from '../archives/tar-reader.ts';
import { VERSION_LAYER_FILES_LABEL } from '../oci-image/version-layer.ts';
import { isIndex, sha256Digest } from '../registry/digest.ts';
import type { Descriptor, ImageStore } from '../registry/store.ts';

/** A CLI archive in an image larger than this is refused (an npm package is far smaller). */
const MAX_ARCHIVE_BYTES = 256 * 1024 * 1024;

/** The child manifests of an index (empty for a single-platform image). */
export async function childDigests(store: ImageStore, repository: string, digest: string): Promise<string[]> {
  const manifest = await store.getManifest(repository, digest);
  if (!manifest || !isIndex(manifest.descriptor.mediaType)) return [];
  const parsed = JSON.parse(Buffer.from(manifest.bytes).toString('utf8')) as { manifests?: Descriptor[] };
  return (parsed.manifests ?? [])
    .filter((d) => !d.annotations?.['vnd.docker.reference.type']) // buildx attestation manifests
    .map((d) => d.digest);
}

/**
 * The CLI archive an api image ships, as it ships: the `.tar.gz`/`.tgz` its version layer lists
 * (the archive a release re-stamps), with its SHA-256. Undefined when the image carries none.
 */
export async function archiveInImage(
  store: ImageStore,
  repository: string,
  digest: string,
): Promise<{ name: string; sha256: string } | undefined> {
  const children = await childDigests(store, repository, digest);
  const manifest = await store.getManifest(repository, children[0] ?? digest);
  if (!manifest) return undefined;
  const parsed = JSON.parse(Buffer.from(manifest.bytes).toString('utf8')) as {
    config?: Descriptor;
    layers?: Descriptor[];
  };
  if (!parsed.config || !parsed.layers?.length) return undefined;
  const config = JSON.parse(
    Buffer.from(await store.getBlob(repository, parsed.config.digest)).toString('utf8'),
  ) as {
    config?: { Labels?: Record<string, string> };
  };
  const listed = config.config?.Labels?.[VERSION_LAYER_FILES_LABEL]?.split(',') ?? [];
  const path = listed.find((p) => /\.(tar\.gz|tgz)$/.test(p));
  if (!path) return undefined;
  const bytes = await fileInLayer(await store.getBlob(repository, parsed.layers.at(-1)!.digest), path);
  return bytes ? { name: basename(path), sha256: sha256Digest(bytes).slice('sha256:'.length) } : undefined;
}

/** The one file `wanted` of a layer, bounded: the other entries are skipped unread. */
async function fileInLayer(blob: Uint8Array, wanted: string): Promise<Buffer | undefined> {
  for await (const entry of readTar(blob)) {
    if (entry.header.type === 'file' && posix.join('/', entry.header.name) === wanted)
      return await entry.bytes(MAX_ARCHIVE_BYTES);
  }
  return undefined;
}
