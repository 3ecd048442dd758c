import { platformChildren } from '../../registry/platform-children.ts';
import { type ImageStore, MEDIA_TYPES } from '../../registry/store.ts';
import { printable } from '../../shared/printable.ts';

import type { ProbeResult, RegistryReading } from '../types.ts';

/**
 * Ask the store what `repository:tag` points to, for one artifact whose running digests the
 * Docker probe read; for a multi-platform index also its platform children (a node runs one of
 * those, not the index). Bounded by the store's own request deadline; never throws.
 */
export async function probeRegistry(options: {
  store: ImageStore;
  artifact: string;
  repository: string;
  tag: string;
  running: ProbeResult[];
}): Promise<RegistryReading> {
  const base = {
    artifact: options.artifact,
    repository: options.repository,
    tag: options.tag,
    store: options.store.name,
    running: options.running
      .filter((r) => r.version !== undefined || r.digest !== undefined)
      .map((r) => ({ source: r.source, digest: r.digest })),
  };
  try {
    const descriptor = await options.store.resolve(options.repository, options.tag);
    const isIndex =
      descriptor?.mediaType === MEDIA_TYPES.ociIndex ||
      descriptor?.mediaType === MEDIA_TYPES.dockerManifestList;
    const index = isIndex
      ? await options.store.getManifest(options.repository, descriptor.digest)
      : undefined;
    const platforms = index ? platformChildren(index.bytes) : undefined;
    return { ...base, expected: descriptor?.digest, ...(platforms ? { platforms } : {}) };
  } catch (error) {
    return { ...base, expected: undefined, error: printable((error as Error).message, { max: 300 }) };
  }
}
