import type { Step } from '../../pipeline/step.ts';
import { proveInStep } from './service-readings.ts';
import { record, type UpgradeContext } from './upgrade-context.ts';

/**
 * The verify checks with `--expect <tag>`: the same proof `release verify` gives. Not in step
 * here counts as a failure like any other, and is rolled back.
 */
export const proveUpgradeStep: Step<UpgradeContext> = {
  title: 'Prove the deployment is in step on the target',
  skip: (ctx) => (ctx.dryRun ? 'dry run' : ctx.failure ? 'the upgrade failed' : false),
  async run(ctx, io) {
    ctx.proof = await proveInStep(ctx, ctx.tag);
    if (!ctx.proof.inStep) {
      ctx.failure = {
        kind: 'proof',
        reason: `not in step on ${ctx.tag} after the upgrade: ${ctx.proof.findings.join('; ')}`,
      };
      record(ctx, `failed: ${ctx.failure.reason}`);
    } else {
      record(ctx, `verify: in step on ${ctx.tag}`);
    }
    io.progress(ctx.proof.inStep ? 'in step' : 'NOT in step');
  },
};
