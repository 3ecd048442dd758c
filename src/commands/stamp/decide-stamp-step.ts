import type { Step } from '../../pipeline/step.ts';
import { planStamp } from '../../stamp/stamp-plan.ts';
import type { StampContext } from './stamp-context.ts';

/** Decide channel, tag and references; refuses a version the requested channel does not take. */
export const decideStampStep: Step<StampContext> = {
  title: 'Decide the channel and tags',
  run(ctx, io) {
    const decision = planStamp({
      resolved: ctx.resolved!,
      repo: ctx.repo!,
      config: ctx.config,
      untracked: ctx.untracked ?? [],
      ...(ctx.requestedChannel ? { requestedChannel: ctx.requestedChannel } : {}),
    });
    ctx.decision = decision;
    ctx.warnings.push(...decision.warnings);
    io.progress(`${decision.record.tag} -> ${decision.record.channel}`); // a validated tag: printable
  },
};
