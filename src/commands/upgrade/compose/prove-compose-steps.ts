import type { Step } from '../../../pipeline/step.ts';
import { record } from '../upgrade-context.ts';
import type { ComposeUpgradeContext } from './compose-context.ts';
import { proveComposeInStep } from './compose-proof.ts';
import { readContainers } from './compose-wait.ts';

/** The verify checks with `--expect <tag>`: not in step counts as a failure, and is rolled back. */
export const proveComposeUpgradeStep: Step<ComposeUpgradeContext> = {
  title: 'Prove the deployment is in step on the target',
  skip: (ctx) => (ctx.dryRun ? 'dry run' : ctx.failure ? 'the upgrade failed' : false),
  async run(ctx, io) {
    ctx.proof = await proveComposeInStep(ctx, ctx.tag);
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

/** After a rollback, the verify checks on the old tag: in step as it was. */
export const proveComposeRollbackStep: Step<ComposeUpgradeContext> = {
  title: 'Prove the deployment is in step on the previous tag',
  skip: (ctx) =>
    !ctx.failure
      ? 'nothing was rolled back'
      : ctx.restores.some((r) => r.status === 'failed')
        ? 'a service could not be put back'
        : false,
  async run(ctx, io) {
    ctx.proof = await proveComposeInStep(ctx, ctx.inStepBefore ? ctx.fromTag : undefined);
    record(ctx, `verify: ${ctx.proof.inStep ? 'in step' : 'NOT in step'} on ${ctx.proof.tag ?? '?'}`);
    io.progress(ctx.proof.inStep ? `in step on ${ctx.proof.tag}` : 'NOT in step');
  },
};

/** What every container of the project runs at the end: `--json` carries it, a failure shows it. */
export const readComposeAfterStep: Step<ComposeUpgradeContext> = {
  title: 'Read the project after',
  skip: (ctx) => (ctx.dryRun ? 'dry run' : false),
  async run(ctx) {
    ctx.containersAfter = await readContainers(ctx);
  },
};
