import type { DeploymentFlags, TargetWording } from '../../deployment-targets/deployment-targets.ts';
import type { VsaCheck } from '../../evidence/vsa-checks.ts';
import type { FailOn } from '../../verify/report.ts';
import type { GlobalOptions } from '../command-context.ts';

/** Every flag of `release verify`, as commander hands them to the run (verify-command.ts). */
export interface VerifyFlags extends GlobalOptions, DeploymentFlags {
  expect?: string;
  registry?: string | true;
  /** An image whose digest is not validly signed by signing.publicKey is drift. */
  requireSignature?: boolean;
  /** An image without a signed SBOM and provenance, or outside the release set, is drift. */
  requireAttestations?: boolean;
  /** `--manifests [dir]`: check deployment files offline instead of a live deployment. */
  manifests?: string | true;
  cli?: boolean;
  timeout: number;
  targetTimeout: number;
  concurrency: number;
  /** `warn`: a warning the skew policy allows also exits 1. */
  failOn?: FailOn;
  /** Sign SLSA verification summaries with the verifier's key (implies both `--require-*`). */
  attest?: boolean;
  /** `--attest`: also write the summaries here (JSON Lines of Sigstore bundles). */
  out?: string;
  verifierKey?: string;
  /** Check summaries (a file or a store) instead of a live deployment. */
  vsa?: string;
  verifierPub?: string;
  requireCheck?: VsaCheck[];
}

/** How `release verify` words a refusal of the flags naming its deployments. */
export const VERIFY_TARGETS: TargetWording = {
  command: 'verify',
  noUrl: {
    message: 'which deployment? --url <api base URL> is required',
    hint: 'release verify --url https://svc.example.com, --docker or --compose <file> to find the API on its engine, --all for the deployments in the config, or --registry --expect <tag> for a release in the registry alone',
  },
  allHint: 'drop --web-url/--worker-url/--docker/--compose with --all, or check one deployment with --url',
};
