import type { ImageStore, Manifest } from '../registry/store.ts';

/**
 * The store as it will be once `manifests` are pushed: reads of those digests are answered from
 * memory, everything else goes to `store`. Lets a dry run plan a release over re-stamped images
 * it does not write.
 */
export function withManifests(store: ImageStore, manifests: readonly Manifest[]): ImageStore {
  const byDigest = new Map(manifests.map((m) => [m.descriptor.digest, m]));
  return Object.assign(Object.create(store) as ImageStore, {
    getManifest: async (repository: string, reference: string) =>
      byDigest.get(reference) ?? (await store.getManifest(repository, reference)),
    resolve: async (repository: string, reference: string) =>
      byDigest.get(reference)?.descriptor ?? (await store.resolve(repository, reference)),
  });
}
