import { planPromotion } from '../../channels/promotion-plan.ts';
import { imageArtifacts } from '../../config/artifacts.ts';
import { UsageError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { imageRecord, readReleaseRecord } from '../../record/release-record.ts';
import { sameTag } from '../../version/compare.ts';
import type { PromoteContext } from './promote-context.ts';

/**
 * Decide what is promoted: the version (`--version`, else the record's tag) and, per artifact, the
 * image (`--from`, else the digest `release build` recorded). The channel refuses a version it does
 * not take here, before anything touches the store.
 */
export const promoteSourcesStep: Step<PromoteContext> = {
  title: 'Find the images to promote',
  async run(ctx, io) {
    const needsRecord = !ctx.versionFlag || !ctx.from;
    ctx.record = needsRecord
      ? await readReleaseRecord(ctx.recordPath)
      : await readReleaseRecord(ctx.recordPath).catch(() => undefined);
    const record = ctx.record;
    ctx.version = ctx.versionFlag ?? record!.tag;
    // The record's commit and dirtiness describe its own build; they only apply to its version.
    const ownBuild = record && sameTag(ctx.version, record.tag);
    if (ownBuild && record.commit) ctx.commit = record.commit;
    ctx.dirty = Boolean(ownBuild && record.dirty);
    planPromotion({
      version: ctx.version,
      channel: ctx.channel,
      commit: ctx.commit,
      dirty: ctx.dirty,
      artifacts: {},
    });

    if (ctx.from) {
      ctx.sources = imageArtifacts(ctx.config).map((artifact) => ({
        artifact: artifact.name,
        repository: artifact.image,
        reference: ctx.from!,
      }));
    } else {
      const missing = imageArtifacts(ctx.config)
        .map((a) => a.name)
        .filter((name) => !imageRecord(record!, name)?.digest);
      if (missing.length) {
        throw new UsageError(
          'RECORD_NO_DIGESTS',
          `the release record at ${ctx.recordPath} has no image digest for ${missing.join(', ')}`,
          {
            hint: 'run `release build` first (it pushes the images and records their digests), or pass --from <tag|digest>',
          },
        );
      }
      ctx.sources = imageArtifacts(ctx.config).map((artifact) => ({
        artifact: artifact.name,
        repository: artifact.image,
        reference: imageRecord(record!, artifact.name)!.digest!,
      }));
    }
    io.progress(`${ctx.version} -> ${ctx.channel}${ctx.from ? ` from ${ctx.from}` : ''}`);
  },
};
