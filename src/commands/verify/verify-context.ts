import type { BaseContext } from '../../pipeline/context.ts';
import type { Descriptor, ImageStore } from '../../registry/store.ts';
import type { PublicSigningKey, SigningKey } from '../../signing/keys.ts';
import type { CheckOutcome } from '../../verify/checks.ts';
import type { ProbedDeployment, VerifyTarget } from '../../verify/probe-deployment.ts';
import type { FailOn } from '../../verify/report.ts';
import type {
  DeploymentReport,
  EvidenceReading,
  ProvenanceReading,
  RegistryReading,
  SignatureReading,
} from '../../verify/types.ts';
import type { VerifyOptions } from '../../verify/verify-deployment.ts';

export interface VerifyContext extends BaseContext {
  target: VerifyTarget;
  options: VerifyOptions;
  startedAt: number;
  /** `--registry`: the store the release tags live in. */
  store?: ImageStore;
  /** The config's image artifacts without a role (a `scheduler`): name -> repository. */
  extraImages?: Record<string, string>;
  probed?: ProbedDeployment;
  registry?: RegistryReading[];
  /** Signatures: the configured public key, `--require-signature`, and the readings. */
  trustedKey?: PublicSigningKey;
  requireSignature?: boolean;
  signatures?: SignatureReading[];
  /** A release deployment with a store: each image's version and the rc it was made from. */
  provenance?: ProvenanceReading[];
  /** `--require-attestations`: missing evidence is drift, not a notice. */
  requireAttestations?: boolean;
  /** Read the evidence at all: `--registry` or `--require-attestations` was given. */
  checkAttestations?: boolean;
  /** Per deployed image digest: its SBOM, provenance and release set. */
  evidence?: EvidenceReading[];
  /** `--attest`: the verifier's key, its id, and the file the summaries go to (`--out`). */
  attest?: { key: SigningKey; verifierId: string; out?: string; failOn?: FailOn };
  /** The summaries `--attest` signed: what each is about, its result, where it was attached. */
  summaries?: {
    about: string;
    /** One image run in several roles: every artifact that runs it (the builder, `about`, first). */
    roles?: string[];
    resourceUri: string;
    result: 'PASSED' | 'FAILED';
    attached: { repository: string; digest: string; referrer: string }[];
  }[];
  outcome?: CheckOutcome;
  report?: DeploymentReport;
  /** The version's tag as the store spells it (`v2026.7.0` asked, `2026.7.0` there), once read. */
  storeTags?: Map<string, string>;
  /** The descriptor that spelling was found by, per `repository\0tag`: read once, used again. */
  storeTagReads?: Map<string, Descriptor>;
}
