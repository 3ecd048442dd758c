import { proveRollbackStepWith } from '../prove-steps.ts';
import type { UpgradeContext } from '../upgrade-context.ts';
import { proveInStep } from './service-readings.ts';

/** After a rollback, the verify checks on the tag the API reported before (prove-steps.ts). */
export const proveRollbackStep = proveRollbackStepWith<UpgradeContext>(
  proveInStep,
  (ctx) => ctx.running?.find((s) => s.role === 'api')?.version,
);
