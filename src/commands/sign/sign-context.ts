import type { ImageArtifact } from '../../config/schema.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import type { PromotionSigning } from '../../record/release-record.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { SigningKey } from '../../signing/keys.ts';
import type { SignTarget } from '../../signing/sign-targets.ts';

export type { SignTarget };

export interface SignResult {
  artifact: ImageArtifact;
  repository: string;
  digest: string;
  status: 'signed' | 'already-signed' | 'would-sign';
  /** The digest of the signature referrer. */
  signature?: string;
  /** An index: each platform child, signed with it. */
  platforms?: { platform: string; digest: string; signature: string }[];
}

/** What the signing steps need; `release sign` and `release promote --channel rc` both carry it. */
export interface SigningFields {
  store: ImageStore;
  signTargets: SignTarget[];
  /** `--key <path>`, when given. */
  keyPath?: string;
  signingKey?: SigningKey;
  signed?: SignResult[];
}

export interface SignContext extends BaseContext, SigningFields {}

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
