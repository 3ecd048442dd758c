import { channelOf } from '../../channels/channel-of.ts';
import { short } from '../../channels/promotion-plan.ts';
import type { Step } from '../../pipeline/step.ts';
import { parseVersion } from '../../version/parse.ts';
import { type BuildContext, imagesToBuild } from './build-context.ts';

/**
 * A build never writes a version tag, but it can build a version whose tag a promotion already
 * wrote (a rebuild after the rc or the release, another SOURCE_DATE_EPOCH): the tag stays where it
 * is, and promoting this build will be refused (TAG_IMMUTABLE). Say so at the end of the build,
 * while the builder is still looking, rather than at the promotion.
 */
export const buildCheckVersionTagsStep: Step<BuildContext> = {
  title: 'Check the version tag is not already taken',
  skip: (ctx) =>
    channelOf(parseVersion(ctx.tag!)) === 'dev'
      ? `${ctx.tag} goes to dev, whose tags move with each build`
      : imagesToBuild(ctx).some((a) => ctx.built[a.name]?.pushed && ctx.built[a.name]?.digest)
        ? false
        : 'no image was written to the configured registry',
  async run(ctx, io) {
    const store = ctx.open(ctx.config.registry);
    const taken: string[] = [];
    for (const artifact of imagesToBuild(ctx)) {
      const built = ctx.built[artifact.name]!;
      if (!built.pushed || !built.digest) continue;
      const existing = await store.resolve(artifact.image, ctx.tag!);
      if (existing && existing.digest !== built.digest)
        taken.push(
          `${artifact.name} (${artifact.image}:${ctx.tag} is ${short(existing.digest)}, this build ${short(built.digest)})`,
        );
    }
    if (taken.length === 0) {
      io.progress(`${ctx.tag} is free or already this build`);
      return;
    }
    ctx.warnings.push(
      `${ctx.tag} already exists with other bytes: ${taken.join(', ')}; version tags are immutable, so it stays where promotion put it and promoting this build will be refused (TAG_IMMUTABLE); to ship this build, tag and stamp a new version`,
    );
  },
};
