import { checkAdopted } from '../../adopt/check-adopted.ts';
import { describe } from '../../adopt/map-adopted.ts';
import { RuleError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import type { AdoptContext } from './adopt-context.ts';

/**
 * Every image handed over is checked in the config's registry before anything is written: the
 * manifest is there (an index's every child too), it is an image or an index, and what version it
 * carries is the record's (src/adopt/check-adopted.ts). All refusals are reported together, exit 1.
 */
export const adoptCheckImagesStep: Step<AdoptContext> = {
  title: 'Check each image in the registry',
  async run(ctx, io) {
    const refused: string[] = [];
    let missing = false;
    for (const { artifact, source } of ctx.placed!) {
      if (source.tag !== undefined) {
        // A reference by tag: resolved once, here; the record keeps the digest, never the tag.
        const found = await ctx.store.resolve(artifact.image, source.tag);
        if (!found) {
          refused.push(`${artifact.name}: ${describe(source)} is not in ${ctx.store.name}`);
          missing = true;
          continue;
        }
        source.image.digest = found.digest;
      }
      const outcome = await checkAdopted(ctx.store, artifact.image, source.image.digest, {
        tag: ctx.tag!,
        config: ctx.config,
        ...(source.image.mediaType ? { mediaType: source.image.mediaType } : {}),
      });
      if (!outcome.ok) {
        refused.push(`${artifact.name}: ${outcome.reason}`);
        missing ||= outcome.missing;
        continue;
      }
      ctx.checked[artifact.name] = outcome.image;
      ctx.warnings.push(...outcome.warnings.map((w) => `${artifact.name}: ${w}`));
      const { platforms, manifests } = outcome.image;
      io.progress(
        `${artifact.name}: ${source.image.digest.slice(0, 19)} ${platforms.length ? `index of ${platforms.join(', ')}` : 'image'}, ${manifests} manifest(s) present`,
      );
    }
    if (refused.length > 0)
      throw new RuleError(
        missing ? 'ADOPT_DIGEST_MISSING' : 'ADOPT_IMAGE_REFUSED',
        `refusing to adopt: ${refused.length === 1 ? refused[0] : `\n  ${refused.join('\n  ')}`}`,
        {
          hint: missing
            ? `push the images to ${ctx.store.name} first (the config's registry, where promote reads them), then hand over the digests that push printed`
            : 'hand over the images built for this version (the stamped one, passed to the build as SERVICE_VERSION)',
        },
      );
  },
};
