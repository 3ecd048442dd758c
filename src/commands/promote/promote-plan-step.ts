import { orderedWrites, planPromotion } from '../../channels/promotion-plan.ts';
import type { Step } from '../../pipeline/step.ts';
import { readStoreState } from '../../registry/apply-promotion.ts';
import { withManifests } from '../../restamp/overlay-store.ts';
import type { PromoteContext } from './promote-context.ts';

/** Read the tags in the store and compute the plan (pure); refusals happen here, before any write. */
export const promotePlanStep: Step<PromoteContext> = {
  title: 'Plan the tags',
  async run(ctx, io) {
    const intent = { version: ctx.version!, channel: ctx.channel, commit: ctx.commit };
    // A dry run did not push the re-stamped release images: the plan reads them from memory.
    const restamped = Object.values(ctx.restamped ?? {}).flatMap((r) => [r.manifest, ...r.children]);
    const store = restamped.length ? withManifests(ctx.store, restamped) : ctx.store;
    ctx.state = await readStoreState(store, intent, ctx.sources!);
    ctx.plan = planPromotion({ ...intent, dirty: ctx.dirty, artifacts: ctx.state.states });
    io.progress(`${orderedWrites(ctx.plan).length} tag(s) to write`);
  },
};
