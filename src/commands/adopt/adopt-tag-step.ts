import type { Step } from '../../pipeline/step.ts';
import type { AdoptContext } from './adopt-context.ts';

/**
 * Each adopted image gets the build tag `release build` gives its own (`build-<commit>`): a CI
 * that pushed by digest left it untagged, and a registry's garbage collection may take an
 * untagged manifest before promotion. No channel reads this tag, and a version tag is written
 * only by promotion.
 */
export const adoptTagStep: Step<AdoptContext> = {
  title: 'Tag the adopted images with the build tag',
  writes: true,
  async run(ctx, io) {
    for (const { artifact, source } of ctx.placed!) {
      const manifest = (await ctx.store.getManifest(artifact.image, source.image.digest))!;
      await ctx.store.putManifest(
        artifact.image,
        ctx.buildTag!,
        manifest.bytes,
        manifest.descriptor.mediaType,
      );
      io.progress(`${artifact.image}:${ctx.buildTag}`);
    }
  },
};
