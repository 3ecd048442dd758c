import type { Step } from '../../pipeline/step.ts';
import { promoteApplyStep } from './promote-apply-step.ts';
import { promoteCheckSignaturesStep } from './promote-check-signatures-step.ts';
import type { PromoteContext } from './promote-context.ts';
import { promotePlanStep } from './promote-plan-step.ts';
import { promoteRecordStep } from './promote-record-step.ts';
import { promoteSignStep } from './promote-sign-step.ts';
import { promoteSigningKeyStep } from './promote-signing-key-step.ts';
import { promoteSourcesStep } from './promote-sources-step.ts';

/**
 * `release promote`: plan, check, apply all or nothing, sign (rc), record.
 * Pipelines are ordered data, one comment per step; each command's lives in its own module so a
 * command loads only its own steps (build and signing pull in Vite, esbuild and Sigstore).
 */
export const promotePipeline: readonly Step<PromoteContext>[] = [
  promoteSourcesStep, // version and source images (--from, else the build's digests); channel refusals
  promotePlanStep, // read the tags, compute the plan; immutable-tag refusals before any write
  promoteSigningKeyStep, // rc: unlock the key before any write (refused without one unless --no-sign)
  promoteCheckSignaturesStep, // release --from: every source digest validly signed, before any write
  promoteApplyStep, // version tags for all, then latest/dev for all; floating tags put back on failure
  promoteSignStep, // rc: sign each promoted digest and read it back (or record --no-sign)
  promoteRecordStep, // append to the record's promotions
];
