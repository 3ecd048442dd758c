import { referencesOf } from '../../src/registry/digest.ts';
import type { ImageStore } from '../../src/registry/store.ts';

/** The `--json` document of `release mirror`, as far as the tests read it. */
export interface MirrorJson {
  images: {
    artifact: string;
    repository: string;
    tag: string;
    digest: string;
    children: string[];
    roles?: string[];
  }[];
  manifests: { repository: string; digest: string; role: string }[];
  archive?: { file: string; sha256: string; size: number };
  written?: { blobs: { copied: number }; manifests: { copied: number } };
}

/** repository -> digest of the images at `tag`. */
export function expectedDigests(set: MirrorJson, tag: string): Record<string, string> {
  return Object.fromEntries(set.images.filter((i) => i.tag === tag).map((i) => [i.repository, i.digest]));
}

/**
 * Every tag of these repositories whose manifest, children or blobs are not all in the store
 * (listed as `repo:tag`): a mirror must never leave one, however it was stopped.
 */
export async function completeTags(store: ImageStore, repositories: string[]): Promise<{ broken: string[] }> {
  const broken: string[] = [];
  for (const repository of repositories) {
    for (const tag of await store.listTags(repository).catch(() => [])) {
      if (!(await complete(store, repository, tag))) broken.push(`${repository}:${tag}`);
    }
  }
  return { broken };
}

async function complete(store: ImageStore, repository: string, reference: string): Promise<boolean> {
  const manifest = await store.getManifest(repository, reference);
  if (!manifest) return false;
  const refs = referencesOf(manifest.bytes, manifest.descriptor.mediaType);
  for (const blob of refs.blobs) if (!(await store.hasBlob(repository, blob.digest))) return false;
  for (const child of refs.manifests) if (!(await complete(store, repository, child.digest))) return false;
  return true;
}
