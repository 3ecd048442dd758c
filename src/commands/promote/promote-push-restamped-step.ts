import { short } from '../../channels/promotion-plan.ts';
import type { Step } from '../../pipeline/step.ts';
import { pushRestamped } from '../../restamp/restamp-image.ts';
import type { PromoteContext } from './promote-context.ts';

/**
 * Push what re-stamping made: only the new blobs (config, version layer) and the manifest, by
 * digest and untagged, so nothing anyone pulls changes before the tags are written.
 */
export const promotePushRestampedStep: Step<PromoteContext> = {
  title: 'Push the re-stamped release images (new blobs only, untagged)',
  writes: true,
  skip: (ctx) =>
    Object.keys(ctx.restamped ?? {}).length === 0 ? 'nothing was re-stamped from a release candidate' : false,
  async run(ctx, io) {
    for (const [artifact, image] of Object.entries(ctx.restamped!)) {
      const repository = ctx.sources!.find((s) => s.artifact === artifact)!.repository;
      const uploaded = await pushRestamped(ctx.store, repository, image);
      io.progress(`${artifact}: ${uploaded} blob(s) pushed, ${short(image.manifest.descriptor.digest)}`);
    }
  },
};
