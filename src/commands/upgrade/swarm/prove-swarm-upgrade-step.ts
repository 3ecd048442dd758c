import { proveUpgradeStepWith } from '../prove-steps.ts';
import type { SwarmUpgradeContext } from './swarm-context.ts';
import { proveSwarmInStep } from './swarm-service-readings.ts';

/** The verify checks with `--expect <tag>` on the Swarm deployment (prove-steps.ts). */
export const proveSwarmUpgradeStep = proveUpgradeStepWith<SwarmUpgradeContext>(proveSwarmInStep);
