import { dirname } from 'node:path';
import { orderedWrites } from '../../channels/promotion-plan.ts';
import type { Step } from '../../pipeline/step.ts';
import { applyPromotion, PromotionFailedError } from '../../registry/apply-promotion.ts';
import { beginJournal } from '../../registry/promotion-journal.ts';
import type { PromoteContext } from './promote-context.ts';

/**
 * Version tags of every artifact, then latest/dev. On failure, `dev` is put back; on the release
 * channel `latest` is left to the settle step, which also decides whether the failure stands.
 * Before the first write the whole group goes into a journal (`registry/promotion-journal.ts`),
 * ended by `run-promote.ts` when the group is over: if this process is killed mid-way, the next
 * command that opens the store finishes or undoes the group.
 */
export const promoteApplyStep: Step<PromoteContext> = {
  title: 'Write the tags',
  writes: true,
  skip: (ctx) => (orderedWrites(ctx.plan!).length === 0 ? 'every tag is already in place' : false),
  async run(ctx, io) {
    const settles = ctx.channel === 'release';
    const plan = ctx.plan!;
    if (ctx.store.journalDir) {
      ctx.journal = await beginJournal(ctx.store.journalDir, {
        channel: plan.channel,
        tag: plan.tag,
        artifacts: plan.artifacts.map((a) => ({ artifact: a.artifact, repository: a.repository })),
        sweep: [dirname(ctx.recordPath)],
        ...(ctx.channel === 'rc' && ctx.sign
          ? { signs: 'rc' as const }
          : Object.keys(ctx.restamped ?? {}).length && ctx.signingKey
            ? { signs: 'release' as const }
            : {}),
        writes: orderedWrites(plan).map(({ artifact, repository, tag, kind, from, to }) => ({
          artifact,
          repository,
          tag,
          kind,
          from,
          to,
        })),
      });
    }
    try {
      ctx.result = await applyPromotion(ctx.store, plan, ctx.state!.manifests, io.progress, {
        settlesLatest: settles,
      });
    } catch (error) {
      if (!settles || !(error instanceof PromotionFailedError)) throw error;
      ctx.applyFailure = error;
      ctx.result = error.result;
    }
  },
};
