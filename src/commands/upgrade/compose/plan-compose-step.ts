import type { Step } from '../../../pipeline/step.ts';
import { commandWords } from '../../../text/command-words.ts';
import { planComposeUpgrade } from '../../../upgrade/compose/compose-plan.ts';
import { checkCliMinimum } from '../cli-minimum-check.ts';
import { jobServiceNames } from '../job-services.ts';
import { record } from '../upgrade-context.ts';
import type { ComposeUpgradeContext } from './compose-context.ts';

/** The plan (pure): which services move, which run first; and the `min_cli_version` rise. */
export const planComposeStep: Step<ComposeUpgradeContext> = {
  title: 'Plan the upgrade',
  run(ctx, io) {
    ctx.plan = planComposeUpgrade({
      tag: ctx.tag,
      roles: ctx.serviceNames,
      ...(ctx.foundWhy ? { found: ctx.foundWhy } : {}),
      ...(ctx.serviceRoles ? { serviceRoles: ctx.serviceRoles } : {}),
      services: ctx.services!,
      targets: ctx.targets!,
      containers: ctx.containersBefore!,
      jobs: jobServiceNames(
        ctx.config,
        ctx.services!.map((s) => ({
          name: s.name,
          image: s.image,
          argv: [...commandWords(s.entrypoint ?? []), ...commandWords(s.command ?? [])],
        })),
      ),
    });
    checkCliMinimum(ctx);
    const changing = ctx.plan.services.filter((s) => s.changes);
    record(ctx, `plan: ${changing.map((s) => s.service).join(', ') || 'nothing'} to change`);
    io.progress(ctx.plan.upToDate ? 'nothing to change' : changing.map((s) => s.service).join(', '));
  },
};
