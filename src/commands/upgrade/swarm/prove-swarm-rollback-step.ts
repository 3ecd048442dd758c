import { proveRollbackStepWith } from '../prove-steps.ts';
import type { SwarmUpgradeContext } from './swarm-context.ts';
import { proveSwarmInStep } from './swarm-service-readings.ts';

/** After a rollback, the verify checks on the tag the API reported before (prove-steps.ts). */
export const proveSwarmRollbackStep = proveRollbackStepWith<SwarmUpgradeContext>(
  proveSwarmInStep,
  (ctx) => ctx.running?.find((s) => s.role === 'api')?.version,
);
