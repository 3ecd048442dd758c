import type { Step } from '../../../pipeline/step.ts';
import { planSwarmUpgrade } from '../../../upgrade/swarm/swarm-plan.ts';
import { checkCliMinimum } from '../cli-minimum-check.ts';
import { record } from '../upgrade-context.ts';
import type { SwarmUpgradeContext } from './swarm-context.ts';

/** The plan (pure), and the `min_cli_version` rise: a warning, or a refusal when asked for. */
export const planSwarmStep: Step<SwarmUpgradeContext> = {
  title: 'Plan the upgrade',
  run(ctx, io) {
    ctx.plan = planSwarmUpgrade(ctx.tag, ctx.running!, ctx.targets!);
    checkCliMinimum(ctx);
    const changing = ctx.plan.services.filter((s) => s.changes);
    record(ctx, `plan: ${changing.length} service(s) to change`);
    io.progress(ctx.plan.upToDate ? 'nothing to change' : changing.map((s) => s.name).join(', '));
  },
};
