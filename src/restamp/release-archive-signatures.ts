import { createHash } from 'node:crypto';
import { SIGNATURE_SUFFIX } from '../archives/archive-signature.ts';
import { companionSignatures, hasVersionLayer, versionLayerFiles } from '../oci-image/version-layer.ts';
import type { ImageStore, Manifest } from '../registry/store.ts';
import { readVersionLayerFiles } from './restamp-version-layer.ts';

/**
 * The CLI archive signatures a release image carries in its version layer(s), by the SHA-256 of
 * the archive each signs. Verify re-stamps the rc to prove the release is exactly the rc
 * re-stamped, but it holds no private key: it answers the re-stamp's request for a signature
 * with the one the release carries for the same archive bytes, so the digests match only if
 * everything else does, and checks that signature against the trusted key on its own.
 */
export async function releaseArchiveSignatures(
  store: ImageStore,
  repository: string,
  release: Manifest,
): Promise<Map<string, string>> {
  const signatures = new Map<string, string>();
  for (const image of await imagesOf(store, repository, release)) {
    const json = JSON.parse(Buffer.from(image.bytes).toString('utf8')) as {
      config?: { digest: string };
      layers?: { digest: string }[];
    };
    if (!json.config || !json.layers?.length) continue;
    const config = JSON.parse(
      Buffer.from(await store.getBlob(repository, json.config.digest)).toString('utf8'),
    ) as { config?: { Labels?: Record<string, string> } };
    const labels = config.config?.Labels;
    const layers = json.layers.map((l) => l.digest);
    if (!hasVersionLayer(labels, layers)) continue;
    const files = await readVersionLayerFiles(await store.getBlob(repository, layers.at(-1)!));
    for (const signaturePath of companionSignatures(versionLayerFiles(labels))) {
      const archive = files.get(signaturePath.slice(0, -SIGNATURE_SUFFIX.length));
      const signature = files.get(signaturePath);
      if (archive && signature) signatures.set(sha256Hex(archive), signature.toString('utf8').trim());
    }
  }
  return signatures;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The image manifests of a tag: itself, or the image children of an index. */
async function imagesOf(store: ImageStore, repository: string, manifest: Manifest): Promise<Manifest[]> {
  const json = JSON.parse(Buffer.from(manifest.bytes).toString('utf8')) as {
    manifests?: { digest: string }[];
  };
  if (!Array.isArray(json.manifests)) return [manifest];
  const children: Manifest[] = [];
  for (const child of json.manifests) {
    const found = await store.getManifest(repository, child.digest);
    if (found) children.push(found);
  }
  return children;
}
