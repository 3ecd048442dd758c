import type { MirrorSet, TagWrite } from '../../mirror/mirror-set.ts';
import type { WriteCounts } from '../../mirror/write-set.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import type { PackedArchive } from '../../registry/oci-archive.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { PublicSigningKey } from '../../signing/keys.ts';

export interface MirrorContext extends BaseContext {
  version: string;
  latest: boolean;
  /** Refuse, rather than leave behind, a referrer no accepted kind verifies. */
  strictReferrers: boolean;
  from: ImageStore;
  to: ImageStore;
  trusted: PublicSigningKey;
  /** `verifier.publicKey`: checks the verification summaries carried with the release. */
  verifier?: PublicSigningKey;
  set?: MirrorSet;
  tags?: TagWrite[];
  /** Why latest was not moved although --latest was given. */
  latestKept?: string;
  counts?: WriteCounts;
  /** A target archive: packed after the tags, by `finish`. */
  finish?: () => Promise<PackedArchive | undefined>;
  archive?: PackedArchive & { file: string };
}
