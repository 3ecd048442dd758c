import { cliArtifact } from '../../config/artifacts.ts';
import { RuleError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { cliMinimumRaise } from '../../upgrade/cli-minimum.ts';
import { planUpgrade } from '../../upgrade/upgrade-plan.ts';
import { record, type UpgradeContext } from './upgrade-context.ts';

/** The plan (pure), and the `min_cli_version` rise: a warning, or a refusal when asked for. */
export const planUpgradeStep: Step<UpgradeContext> = {
  title: 'Plan the upgrade',
  run(ctx, io) {
    ctx.plan = planUpgrade(ctx.tag, ctx.running!, ctx.targets!);
    const change = cliMinimumRaise({
      current: ctx.currentMinCli,
      target: ctx.targetMinCli,
      tag: ctx.tag,
      cliPackage: cliArtifact(ctx.config)?.package ?? 'service-cli',
    });
    if (change) {
      ctx.cliChange = change;
      if (ctx.requireCliCompatible) {
        throw new RuleError('UPGRADE_CLI_INCOMPATIBLE', `refusing: ${change.message}`, {
          hint: `upgrade the CLIs first (${change.install}, or svc update --url ${ctx.apiUrl} once the API runs ${ctx.tag}), or drop --require-cli-compatible`,
        });
      }
      ctx.warnings.push(
        `${change.message}; install the matching CLI with: ${change.install} (or svc update --url ${ctx.apiUrl})`,
      );
    }
    const changing = ctx.plan.services.filter((s) => s.changes);
    record(ctx, `plan: ${changing.length} service(s) to change`);
    io.progress(ctx.plan.upToDate ? 'nothing to change' : changing.map((s) => s.name).join(', '));
  },
};
