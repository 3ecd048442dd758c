import { planPromotion } from '../../channels/promotion-plan.ts';
import { checkRcIsBuild, checkReleaseFrom, findFromTag, newerRcs } from '../../channels/version-match.ts';
import { builtImageArtifacts } from '../../config/artifacts.ts';
import { UsageError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { imageRecord, readReleaseRecord } from '../../record/release-record.ts';
import { sameTag } from '../../version/compare.ts';
import { spellLike } from '../../version/image-tag.ts';
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
    if (ctx.from) await findFrom(ctx);
    ctx.version = versionAsSpelled(ctx);
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
    // The version must be the one the images are: a release has its rc's X.Y.Z, an rc of the
    // record's build is the version that build baked in (exit 2 before anything is read or written).
    if (ctx.channel === 'release' && ctx.from) {
      checkReleaseFrom(ctx.from, ctx.version);
      await warnNewerRcs(ctx);
    }
    if (ctx.channel === 'rc' && !ctx.from) checkRcIsBuild(ctx.version, record!.tag);

    if (ctx.from) {
      ctx.sources = builtImageArtifacts(ctx.config).map((artifact) => ({
        artifact: artifact.name,
        repository: artifact.image,
        reference: ctx.from!,
      }));
    } else {
      const missing = builtImageArtifacts(ctx.config)
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
      ctx.sources = builtImageArtifacts(ctx.config).map((artifact) => ({
        artifact: artifact.name,
        repository: artifact.image,
        reference: imageRecord(record!, artifact.name)!.digest!,
      }));
    }
    io.progress(`${ctx.version} -> ${ctx.channel}${ctx.from ? ` from ${ctx.from}` : ''}`);
  },
};

/** `--from v1.0.0-rc.2` while the store has `v1.0.0-rc.3`: allowed (on purpose, perhaps), but said. */
async function warnNewerRcs(ctx: PromoteContext): Promise<void> {
  const first = builtImageArtifacts(ctx.config)[0];
  if (!first) return;
  const tags = await ctx.store.listTags(first.image).catch(() => [] as string[]);
  const newer = newerRcs(ctx.from!, tags);
  if (newer.length > 0) {
    ctx.warnings.push(
      `releasing ${ctx.version} from ${ctx.from}, but ${newer.join(', ')} of the same version ${newer.length === 1 ? 'is' : 'are'} newer in ${first.image}: is ${ctx.from} the rc you tested?`,
    );
  }
}

/**
 * `--from` as the store spells it: `v2026.7.0-rc.1` of a project tagging `2026.7.0-rc.1` is that
 * tag (said in a warning); neither spelling present is noted for promoteFromExistsStep.
 */
async function findFrom(ctx: PromoteContext): Promise<void> {
  const first = builtImageArtifacts(ctx.config)[0];
  if (!first) return;
  const tags = await ctx.store.listTags(first.image).catch(() => undefined);
  if (tags === undefined) return; // the read of the sources says what is wrong with the store
  const found = findFromTag(ctx.from!, tags);
  if ('missing' in found) {
    // Refused by promoteFromExistsStep, after the rules that refuse without reading the store.
    ctx.fromMissing = { repository: `${ctx.store.name}/${first.image}`, nearest: found.nearest };
    return;
  }
  if (found.respelled) {
    ctx.warnings.push(
      `--from ${ctx.from}: no such tag in ${first.image}; using ${found.tag}, its spelling there`,
    );
    ctx.from = found.tag;
  }
}

/**
 * The version promoted, spelled as the project's tags are: `--version` takes the spelling of the
 * record's tag of the same version (the stamp read it from git), else that of `--from`'s tag.
 */
function versionAsSpelled(ctx: PromoteContext): string {
  const record = ctx.record;
  if (ctx.versionFlag === undefined) return record!.tag;
  const asked = ctx.versionFlag;
  const spelled =
    record && sameTag(asked, record.tag) ? record.tag : ctx.from ? spellLike(asked, ctx.from) : asked;
  if (spelled !== asked)
    ctx.warnings.push(`--version ${asked}: tagged ${spelled}, as this project spells its tags`);
  return spelled;
}
