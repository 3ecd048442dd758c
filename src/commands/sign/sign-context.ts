import type { ImageArtifact } from '../../config/schema.ts';
import type { BaseContext } from '../../pipeline/context.ts';
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
