import { ExternalError } from '../errors.ts';
import { isDigest, referencesOf } from './digest.ts';
import { copyReferrers } from './referrers.ts';
import type { Descriptor, ImageStore } from './store.ts';

export interface CopyResult {
  descriptor: Descriptor;
  /** Blobs sent, mounted, or already present, for reports. */
  blobs: { copied: number; mounted: number; present: number };
  /** Referrers (signatures) of the image, and of each child of an index, copied along with it. */
  referrers: number;
}

/**
 * Copy an image (a manifest, or an index with every child) from one store to another and tag it:
 * blobs first, then child manifests by digest, then the top manifest, so the target never holds a
 * manifest whose parts are missing. Bytes are copied unchanged, so the digest stays the same.
 * Within one store, blobs are mounted from the source repository instead of copied.
 */
export async function copyImage(
  from: ImageStore,
  fromRepository: string,
  reference: string,
  to: ImageStore,
  toRepository: string,
  tag?: string,
): Promise<CopyResult> {
  const blobs = { copied: 0, mounted: 0, present: 0 };
  const manifest = await from.getManifest(fromRepository, reference);
  if (!manifest)
    throw new ExternalError(
      'IMAGE_MISSING',
      `${from.name} has no ${fromRepository}${isDigest(reference) ? '@' : ':'}${reference}`,
      {
        hint: 'build and push the image first, or check the reference',
      },
    );
  let referrers = 0;
  await copyTree(manifest.descriptor, manifest.bytes);
  // An image's signatures travel with it; within one repository they already apply.
  referrers += (await copyReferrers(from, fromRepository, manifest.descriptor.digest, to, toRepository))
    .length;
  if (tag) await to.putManifest(toRepository, tag, manifest.bytes, manifest.descriptor.mediaType);
  return { descriptor: manifest.descriptor, blobs, referrers };

  async function copyTree(descriptor: Descriptor, bytes: Uint8Array): Promise<void> {
    const refs = referencesOf(bytes, descriptor.mediaType);
    for (const blob of refs.blobs) await copyBlob(blob.digest);
    for (const child of refs.manifests) {
      const childManifest = await from.getManifest(fromRepository, child.digest);
      if (!childManifest)
        throw new ExternalError(
          'IMAGE_MISSING',
          `${from.name}: ${fromRepository} lacks ${child.digest}, a child of ${descriptor.digest}`,
          {
            hint: 'the index in the source store is incomplete; push the image again',
          },
        );
      await copyTree(childManifest.descriptor, childManifest.bytes);
      // A platform image is signed on its own (a node runs it, not the index): its signatures go too.
      referrers += (await copyReferrers(from, fromRepository, child.digest, to, toRepository)).length;
    }
    await to.putManifest(toRepository, descriptor.digest, bytes, descriptor.mediaType);
  }

  async function copyBlob(digest: string): Promise<void> {
    if (await to.hasBlob(toRepository, digest)) {
      blobs.present++;
      return;
    }
    if (from === to && to.mountBlob && (await to.mountBlob(fromRepository, toRepository, digest))) {
      blobs.mounted++;
      return;
    }
    await to.putBlob(toRepository, digest, await from.getBlob(fromRepository, digest));
    blobs.copied++;
  }
}
