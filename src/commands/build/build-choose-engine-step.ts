import { chooseEngine } from '../../build-engines/select-engine.ts';
import type { Step } from '../../pipeline/step.ts';
import { type BuildContext, imagesToBuild } from './build-context.ts';

/** docker when asked or when an engine answers; the daemonless oci engine otherwise. */
export const buildChooseEngineStep: Step<BuildContext> = {
  title: 'Choose the image engine',
  skip: (ctx) => (imagesToBuild(ctx).length === 0 ? 'no image to build (--only)' : false),
  async run(ctx, io) {
    ctx.engine = await chooseEngine(ctx.requestedEngine, ctx.env);
    io.progress(`${ctx.engine.name}: ${ctx.engine.reason}`);
  },
};
