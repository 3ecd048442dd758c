import type { Step } from '../../pipeline/step.ts';
import { adoptCheckImagesStep } from './adopt-check-images-step.ts';
import type { AdoptContext } from './adopt-context.ts';
import { adoptEvidenceStep } from './adopt-evidence-step.ts';
import { adoptReadInputsStep } from './adopt-read-inputs-step.ts';
import { adoptReadRecordStep } from './adopt-read-record-step.ts';
import { adoptTagStep } from './adopt-tag-step.ts';
import { adoptWriteRecordStep } from './adopt-write-record-step.ts';

/**
 * `release adopt`: images the project's own CI built and pushed become the build of the stamped
 * version, checked in the registry, then recorded as `release build` records its own, so
 * promote, sign, attest and verify go on exactly as for images we built.
 */
export const adoptPipeline: readonly Step<AdoptContext>[] = [
  adoptReadInputsStep, // metadata files (bounded) and references, each mapped to an artifact: exit 2 before any read
  adoptReadRecordStep, // the stamped tag, commit and source
  adoptCheckImagesStep, // every digest (and child) in the registry, an image or index, of this version
  adoptTagStep, // build-<commit> on each, as release build leaves its images (untagged pushes are kept)
  adoptEvidenceStep, // a provenance that says what is known (adopted, from where), signed and attached
  adoptWriteRecordStep, // digests, marked adopted with their source, written atomically
];
