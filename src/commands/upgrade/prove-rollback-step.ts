import type { Step } from '../../pipeline/step.ts';
import { proveInStep } from './service-readings.ts';
import { record, type UpgradeContext } from './upgrade-context.ts';

/** After a rollback, the verify checks on the old tag: the deployment is in step as it was. */
export const proveRollbackStep: Step<UpgradeContext> = {
  title: 'Prove the deployment is in step on the previous tag',
  skip: (ctx) =>
    !ctx.failure
      ? 'nothing was rolled back'
      : ctx.restores.some((r) => r.status === 'failed')
        ? 'a service could not be put back'
        : false,
  async run(ctx, io) {
    const fromTag = ctx.running!.find((s) => s.role === 'api')?.version;
    ctx.proof = await proveInStep(ctx, ctx.inStepBefore ? fromTag : undefined);
    record(ctx, `verify: ${ctx.proof.inStep ? 'in step' : 'NOT in step'} on ${ctx.proof.tag ?? '?'}`);
    io.progress(ctx.proof.inStep ? `in step on ${ctx.proof.tag}` : 'NOT in step');
  },
};
