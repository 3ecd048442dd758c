import { readAdoptSources } from '../../adopt/adopt-sources.ts';
import { describe, mapAdopted } from '../../adopt/map-adopted.ts';
import type { Step } from '../../pipeline/step.ts';
import type { AdoptContext } from './adopt-context.ts';

/** Read what was handed over and place each image: nothing is asked of a registry before this holds. */
export const adoptReadInputsStep: Step<AdoptContext> = {
  title: 'Read the images handed over',
  async run(ctx, io) {
    ctx.sources = await readAdoptSources(ctx.inputs, ctx.cwd);
    ctx.placed = mapAdopted(ctx.config, ctx.sources);
    for (const p of ctx.placed)
      io.progress(
        `${p.artifact.name}: ${describe(p.source)} (by ${p.matchedBy}${p.roleGiven ? `, given as its role ${p.roleGiven}` : ''})`,
      );
  },
};
