import { proveRollbackStepWith, proveUpgradeStepWith } from '../prove-steps.ts';
import type { ComposeUpgradeContext } from './compose-context.ts';
import { proveComposeInStep } from './compose-proof.ts';

/** The verify checks with `--expect <tag>` on the Compose project (prove-steps.ts). */
export const proveComposeUpgradeStep = proveUpgradeStepWith<ComposeUpgradeContext>(proveComposeInStep);

/** After a rollback, the verify checks on the tag the API reported before (prove-steps.ts). */
export const proveComposeRollbackStep = proveRollbackStepWith<ComposeUpgradeContext>(
  proveComposeInStep,
  (ctx) => ctx.fromTag,
);
