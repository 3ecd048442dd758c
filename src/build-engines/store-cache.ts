import { openStore } from '../registry/open-store.ts';
import type { ImageStore } from '../registry/store.ts';

/**
 * One store object per registry string, so a base image and a target in the same store are the
 * same object (blobs are then mounted, not copied).
 */
export function storeOpener(options: {
  cwd: string;
  env: Record<string, string | undefined>;
  insecure?: string[];
}): (registry: string) => ImageStore {
  const stores = new Map<string, ImageStore>();
  return (registry) => {
    let store = stores.get(registry);
    if (!store) {
      store = openStore(registry, options);
      stores.set(registry, store);
    }
    return store;
  };
}
