import type { BaseContext } from '../../pipeline/context.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { PublicSigningKey } from '../../signing/keys.ts';
import type { ReleaseImageReading } from '../../verify/checks/check-release-images.ts';
import type {
  DeploymentReport,
  EvidenceReading,
  ProvenanceReading,
  SignatureReading,
} from '../../verify/types.ts';
import type { Version } from '../../version/kinds.ts';
import type { VerifyContext } from './verify-context.ts';

/** One image of the release: the artifact that builds it and every role run from it. */
export interface ReleaseImageSubject {
  artifact: string;
  roles: string[];
  repository: string;
}

/**
 * `release verify --registry --expect <tag>` with no deployment: the release as the store holds
 * it, every image of the config once, however many roles run it.
 */
export interface ReleaseVerifyContext extends BaseContext {
  store: ImageStore;
  version: Version;
  /** The tag as the store spells it (`--expect v2026.7.0` of a project tagging `2026.7.0`). */
  tag: string;
  subjects: ReleaseImageSubject[];
  trustedKey?: PublicSigningKey;
  requireSignature: boolean;
  requireAttestations: boolean;
  attest?: VerifyContext['attest'];
  timeoutMs: number;
  startedAt: number;
  images?: ReleaseImageReading[];
  provenance?: ProvenanceReading[];
  signatures?: SignatureReading[];
  evidence?: EvidenceReading[];
  report?: DeploymentReport;
  summaries?: VerifyContext['summaries'];
}
