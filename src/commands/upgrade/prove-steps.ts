import type { Step } from '../../pipeline/step.ts';
import type { Proof } from '../../upgrade/upgrade-outcome.ts';
import { record, type UpgradeRunContext } from './upgrade-context.ts';

/** The verify checks of one kind of deployment, with `--expect <tag>` when a tag is given. */
export type ProveInStep<C> = (ctx: C, expect: string | undefined) => Promise<Proof>;

/**
 * The verify checks with `--expect <tag>`, after the upgrade: the same proof `release verify`
 * gives. Not in step here counts as a failure like any other, and is rolled back.
 */
export function proveUpgradeStepWith<C extends UpgradeRunContext>(prove: ProveInStep<C>): Step<C> {
  return {
    title: 'Prove the deployment is in step on the target',
    skip: (ctx) => (ctx.dryRun ? 'dry run' : ctx.failure ? 'the upgrade failed' : false),
    async run(ctx, io) {
      ctx.proof = await prove(ctx, ctx.tag);
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
}

/**
 * After a rollback, the verify checks on the previous tag (`previousTag`: what the API reported
 * before), when the deployment was in step then: it is in step as it was. One that was not is
 * checked for what it is, not held to a tag it never had.
 */
export function proveRollbackStepWith<C extends UpgradeRunContext>(
  prove: ProveInStep<C>,
  previousTag: (ctx: C) => string | undefined,
): Step<C> {
  return {
    title: 'Prove the deployment is in step on the previous tag',
    skip: (ctx) =>
      !ctx.failure
        ? 'nothing was rolled back'
        : ctx.restores.some((r) => r.status === 'failed')
          ? 'a service could not be put back'
          : false,
    async run(ctx, io) {
      ctx.proof = await prove(ctx, ctx.inStepBefore ? previousTag(ctx) : undefined);
      record(ctx, `verify: ${ctx.proof.inStep ? 'in step' : 'NOT in step'} on ${ctx.proof.tag ?? '?'}`);
      io.progress(ctx.proof.inStep ? `in step on ${ctx.proof.tag}` : 'NOT in step');
    },
  };
}
