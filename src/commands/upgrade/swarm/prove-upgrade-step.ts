import { proveUpgradeStepWith } from '../prove-steps.ts';
import type { UpgradeContext } from '../upgrade-context.ts';
import { proveInStep } from './service-readings.ts';

/** The verify checks with `--expect <tag>` on the Swarm deployment (prove-steps.ts). */
export const proveUpgradeStep = proveUpgradeStepWith<UpgradeContext>(proveInStep);
