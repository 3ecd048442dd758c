import type { Channel } from '../../channels/channel-of.ts';
import type { LatestOutcome } from '../../channels/latest-repair.ts';
import type { PromotionPlan } from '../../channels/promotion-plan.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import type { PromotionSigning, ReleaseRecord } from '../../record/release-record.ts';
import type {
  PromotionFailedError,
  PromotionResult,
  PromotionSource,
  StoreState,
} from '../../registry/apply-promotion.ts';
import type { OpenJournal } from '../../registry/promotion-journal.ts';
import type { SettleResult } from '../../registry/settle-latest.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { RestampedImage } from '../../restamp/restamp-image.ts';
import type { RebuildComparison } from '../../reversion/compare-rebuild.ts';
import type { CliReversion } from '../../reversion/reversion-cli-archive.ts';
import type { SigningKey } from '../../signing/keys.ts';
import type { PackagePromotion } from './package-promotion.ts';

export interface PromoteContext extends BaseContext, PromoteSigningFields {
  channel: Channel;
  /** `--version`: else the record's tag. */
  versionFlag?: string;
  /** `--from <tag|digest>`: else the digests `release build` wrote into the record. */
  from?: string;
  recordPath: string;
  store: ImageStore;
  /** Filled by the steps, in order. */
  record?: ReleaseRecord;
  version?: string;
  commit?: string;
  dirty?: boolean;
  sources?: PromotionSource[];
  state?: StoreState;
  plan?: PromotionPlan;
  result?: PromotionResult;
  /** The journal of the group of tag writes under way, ended when the group is over. */
  journal?: OpenJournal;
  /** release from an rc: the key that re-signed a signed CLI archive (reused to sign the release). */
  archiveSigningKey?: SigningKey;
  /** release from an rc: per artifact, the re-stamped image the plan tags instead. */
  restamped?: Record<string, RestampedImage>;
  /** release from an rc: the release digests signed, bound to their rc digests. */
  releaseSigning?: PromotionSigning;
  /** Release channel: a failed write, judged by the settle step once latest has settled. */
  applyFailure?: PromotionFailedError;
  settle?: SettleResult;
  latestOutcome?: LatestOutcome;
  /** The CLI package's part, when `artifacts.cli.publish` is on. */
  cliPackage?: PackagePromotion;
  /** release from an rc: how the CLI archive in the API image was made from the rc's. */
  cliReversion?: CliReversion;
  /**
   * release from an rc: per image whose baked files were rebuilt from the rc's commit or had their
   * version strings rewritten, how and why, and what differs from the rc.
   */
  imageRebuilds?: Record<string, RebuildComparison & { strategy: 'rebuild' | 'rewrite'; reason: string }>;
  /** Why the CLI is not published although `artifacts.cli.publish` is on (not an npm package). */
  cliNotPublished?: string;
}

/** The signing part of `release promote`'s context. */
export interface PromoteSigningFields {
  /** false with `--no-sign`: the rc channel then promotes unsigned, and says so in the record. */
  sign?: boolean;
  /** `--key <path>`, when given. */
  keyPath?: string;
  signingKey?: SigningKey;
  /** What was signed or verified, for the output and the promotion entry of the record. */
  signing?: PromotionSigning;
}
