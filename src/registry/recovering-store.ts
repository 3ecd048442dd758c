import { type RecoveryOptions, recoverStore } from './recover-promotion.ts';
import type { Descriptor, ImageStore, Manifest } from './store.ts';

/**
 * A store that, before its first use, recovers what killed processes left in it (temporary files,
 * promotion journals: `recover-promotion.ts`). Every command opens its store through `openStore`,
 * so whichever command touches the store next puts it right before reading or writing anything.
 */
export class RecoveringStore implements ImageStore {
  readonly name: string;
  readonly pullPrefix?: string;
  readonly journalDir: string;
  private recovered: Promise<void> | undefined;

  constructor(
    private readonly inner: ImageStore,
    private readonly options: RecoveryOptions,
  ) {
    this.name = inner.name;
    if (inner.pullPrefix) this.pullPrefix = inner.pullPrefix;
    this.journalDir = options.journalDir;
  }

  /** Run the recovery (once; a failed one is tried again on the next call). */
  ready(): Promise<void> {
    this.recovered ??= recoverStore(this.inner, this.options).catch((error) => {
      this.recovered = undefined;
      throw error;
    });
    return this.recovered;
  }

  async getManifest(repository: string, reference: string): Promise<Manifest | undefined> {
    await this.ready();
    return this.inner.getManifest(repository, reference);
  }
  async resolve(repository: string, reference: string): Promise<Descriptor | undefined> {
    await this.ready();
    return this.inner.resolve(repository, reference);
  }
  async putManifest(repository: string, reference: string, bytes: Uint8Array, mediaType: string) {
    await this.ready();
    return this.inner.putManifest(repository, reference, bytes, mediaType);
  }
  async hasBlob(repository: string, digest: string): Promise<boolean> {
    await this.ready();
    return this.inner.hasBlob(repository, digest);
  }
  async getBlob(repository: string, digest: string, maxBytes?: number): Promise<Uint8Array> {
    await this.ready();
    return this.inner.getBlob(repository, digest, maxBytes);
  }
  async putBlob(repository: string, digest: string, bytes: Uint8Array): Promise<void> {
    await this.ready();
    return this.inner.putBlob(repository, digest, bytes);
  }
  async listTags(repository: string): Promise<string[]> {
    await this.ready();
    return this.inner.listTags(repository);
  }
}

/** Wrap with recovery, keeping the optional abilities the inner store has (and only those). */
export function withRecovery(inner: ImageStore, options: RecoveryOptions): RecoveringStore {
  const store = new RecoveringStore(inner, options);
  const optional = store as {
    -readonly [K in 'deleteTag' | 'mountBlob' | 'referrers' | 'readBlobTo' | 'writeBlobFrom']?: ImageStore[K];
  };
  if (inner.readBlobTo)
    optional.readBlobTo = async (repository, digest, path) => {
      await store.ready();
      return inner.readBlobTo!(repository, digest, path);
    };
  if (inner.writeBlobFrom)
    optional.writeBlobFrom = async (repository, digest, path) => {
      await store.ready();
      return inner.writeBlobFrom!(repository, digest, path);
    };
  if (inner.deleteTag)
    optional.deleteTag = async (repository, tag) => {
      await store.ready();
      return inner.deleteTag!(repository, tag);
    };
  if (inner.mountBlob)
    optional.mountBlob = async (from, to, digest) => {
      await store.ready();
      return inner.mountBlob!(from, to, digest);
    };
  if (inner.referrers)
    optional.referrers = async (repository, digest) => {
      await store.ready();
      return inner.referrers!(repository, digest);
    };
  return store;
}

/** Recover `store` now if it is one `openStore` made (a no-op for any other store). */
export async function recoverNow(store: ImageStore): Promise<void> {
  if (store instanceof RecoveringStore) await store.ready();
}
