import type { Step } from '../../pipeline/step.ts';
import { releaseAttestStep } from './release-attest-step.ts';
import { releaseCheckStep } from './release-check-step.ts';
import { releaseEvidenceStep } from './release-evidence-step.ts';
import { releaseImagesStep } from './release-images-step.ts';
import type { ReleaseVerifyContext } from './release-verify-context.ts';

/** `release verify --registry --expect <tag>` with no deployment: the release in the store alone. */
export const releaseVerifyPipeline: readonly Step<ReleaseVerifyContext>[] = [
  releaseImagesStep, // every image at the tag: digest, stated version, a release's rc re-stamp and platforms
  releaseEvidenceStep, // signing.publicKey: signatures (every platform image), SBOM, provenance, release set
  releaseCheckStep, // the findings and the report: one row per image, its roles named
  releaseAttestStep, // --attest: a summary per image and for the release set, without in-step
];
