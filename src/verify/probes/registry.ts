import { platformChildren } from '../../registry/platform-children.ts';
import { type Descriptor, type ImageStore, MEDIA_TYPES } from '../../registry/store.ts';
import { printable } from '../../text/printable.ts';

import type { ProbeResult, RegistryReading } from '../types.ts';

/** What `repository:tag` points to in the store: read once per image, however many roles run it. */
export type TagReading = Pick<RegistryReading, 'expected' | 'platforms' | 'error'>;

/**
 * Ask the store what `repository:tag` points to; for a multi-platform index also its platform
 * children (a node runs one of those, not the index). `known`: the descriptor a caller already read
 * of the same tag in this run. Bounded by the store's own request deadline; never throws.
 */
export async function readTag(
  store: ImageStore,
  repository: string,
  tag: string,
  known?: Descriptor,
): Promise<TagReading> {
  try {
    const descriptor = known ?? (await store.resolve(repository, tag));
    const isIndex =
      descriptor?.mediaType === MEDIA_TYPES.ociIndex ||
      descriptor?.mediaType === MEDIA_TYPES.dockerManifestList;
    const index = isIndex ? await store.getManifest(repository, descriptor.digest) : undefined;
    const platforms = index ? platformChildren(index.bytes) : undefined;
    return { expected: descriptor?.digest, ...(platforms ? { platforms } : {}) };
  } catch (error) {
    return { expected: undefined, error: printable((error as Error).message, { max: 300 }) };
  }
}

/**
 * The reading of one artifact (one role of a shared image: `role`) whose running digests the
 * Docker probe read, against the tag's reading of its image.
 */
export function registryReading(options: {
  store: ImageStore;
  artifact: string;
  role?: string;
  repository: string;
  tag: string;
  running: ProbeResult[];
  read: TagReading;
}): RegistryReading {
  return {
    artifact: options.artifact,
    ...(options.role ? { role: options.role } : {}),
    repository: options.repository,
    tag: options.tag,
    store: options.store.name,
    running: options.running
      .filter((r) => r.version !== undefined || r.digest !== undefined)
      .map((r) => ({ source: r.source, digest: r.digest })),
    ...options.read,
  };
}

/** Read the tag of one artifact's image and compare: `readTag` and `registryReading` in one. */
export async function probeRegistry(options: {
  store: ImageStore;
  artifact: string;
  repository: string;
  tag: string;
  running: ProbeResult[];
}): Promise<RegistryReading> {
  const read = await readTag(options.store, options.repository, options.tag);
  return registryReading({ ...options, read });
}
