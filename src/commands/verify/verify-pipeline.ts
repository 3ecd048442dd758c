import type { Step } from '../../pipeline/step.ts';
import { verifyAttestStep } from './verify-attest-step.ts';
import { verifyCheckStep } from './verify-check-step.ts';
import type { VerifyContext } from './verify-context.ts';
import { verifyEvidenceStep } from './verify-evidence-step.ts';
import { verifyPackageStep } from './verify-package-step.ts';
import { verifyProbeStep } from './verify-probe-step.ts';
import { verifyProvenanceStep } from './verify-provenance-step.ts';
import { verifyRegistryStep } from './verify-registry-step.ts';
import { verifySignaturesStep } from './verify-signatures-step.ts';

/**
 * `release verify`: probe, compare, report. In its own module like every pipeline, so the
 * operator's command does not load other pipelines' steps (the build and signing steps pull in
 * Vite, esbuild and Sigstore: seconds of start-up on a small machine).
 */
export const verifyPipeline: readonly Step<VerifyContext>[] = [
  verifyProbeStep, // api, worker, web and svc read at once, each within its own deadline
  verifyRegistryStep, // --registry: the digest each expected tag names vs the digest running
  verifySignaturesStep, // signing.publicKey and a store: is each image's digest validly signed
  verifyEvidenceStep, // a store and signing.publicKey: SBOM, provenance and the release set of each deployed digest
  verifyProvenanceStep, // a store and a release: each image's version; made from a signed rc, same code
  verifyCheckStep, // one tag, nothing unknown, API = worker, the CLI's minimum and PATH order
  verifyPackageStep, // --registry, cli.publish: service-cli@<tag> in the npm registry; latest for a release
  verifyAttestStep, // --attest: the verdict signed by the verifier as SLSA VSAs, attached when PASSED
];
