import { orderedWrites } from '../../channels/promotion-plan.ts';
import type { Step } from '../../pipeline/step.ts';
import { applyPromotion, PromotionFailedError } from '../../registry/apply-promotion.ts';
import type { PromoteContext } from './promote-context.ts';

/**
 * Version tags of every artifact, then latest/dev. On failure, `dev` is put back; on the release
 * channel `latest` is left to the settle step, which also decides whether the failure stands.
 */
export const promoteApplyStep: Step<PromoteContext> = {
  title: 'Write the tags',
  writes: true,
  skip: (ctx) => (orderedWrites(ctx.plan!).length === 0 ? 'every tag is already in place' : false),
  async run(ctx, io) {
    const settles = ctx.channel === 'release';
    try {
      ctx.result = await applyPromotion(ctx.store, ctx.plan!, ctx.state!.manifests, io.progress, {
        settlesLatest: settles,
      });
    } catch (error) {
      if (!settles || !(error instanceof PromotionFailedError)) throw error;
      ctx.applyFailure = error;
      ctx.result = error.result;
    }
  },
};
