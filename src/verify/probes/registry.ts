import type { ImageStore } from '../../registry/store.ts';
import { printable } from '../../shared/printable.ts';

import type { ProbeResult, RegistryReading } from '../types.ts';

/**
 * Ask the store what `repository:tag` points to, for one artifact whose running digests the
 * Docker probe read. Bounded by the store's own request deadline; never throws.
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
    return { ...base, expected: descriptor?.digest };
  } catch (error) {
    return { ...base, expected: undefined, error: printable((error as Error).message, { max: 300 }) };
  }
}
