import type { ImageStore } from '../../registry/store.ts';
import { printable } from '../../shared/printable.ts';

import type { ArtifactName, ProbeResult } from '../types.ts';

/** One image: the digest its expected tag points to in the store, and what the engine runs. */
export interface RegistryReading {
  artifact: ArtifactName;
  /** `service-worker:v1.4.0` in `store` */
  repository: string;
  tag: string;
  store: string;
  /** undefined when the tag is not in the store (and `error` is unset) or it could not be read. */
  expected: string | undefined;
  error?: string;
  /** Each container or service of this image and the manifest digest it runs (when known). */
  running: { source: string; digest: string | undefined }[];
}

/**
 * Ask the store what `repository:tag` points to, for one artifact whose running digests the
 * Docker probe read. Bounded by the store's own request deadline; never throws.
 */
export async function probeRegistry(options: {
  store: ImageStore;
  artifact: ArtifactName;
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
    return { ...base, expected: descriptor?.digest };
  } catch (error) {
    return { ...base, expected: undefined, error: printable((error as Error).message, { max: 300 }) };
  }
}
