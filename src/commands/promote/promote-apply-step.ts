import { orderedWrites } from '../../channels/promotion-plan.ts';
import type { Step } from '../../pipeline/step.ts';
import { applyPromotion } from '../../registry/apply-promotion.ts';
import type { PromoteContext } from './promote-context.ts';

/** Version tags of every artifact, then latest/dev; on failure the floating tags are put back. */
export const promoteApplyStep: Step<PromoteContext> = {
  title: 'Write the tags',
  writes: true,
  skip: (ctx) => (orderedWrites(ctx.plan!).length === 0 ? 'every tag is already in place' : false),
  async run(ctx, io) {
    ctx.result = await applyPromotion(ctx.store, ctx.plan!, ctx.state!.manifests, io.progress);
  },
};
