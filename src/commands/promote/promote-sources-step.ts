import { planPromotion } from '../../channels/promotion-plan.ts';
import { checkRcIsBuild, checkReleaseFrom, newerRcs } from '../../channels/version-match.ts';
import { builtImageArtifacts } from '../../config/artifacts.ts';
import type { ImageArtifactConfig } from '../../config/artifacts-schema.ts';
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
      // A role the config never declares has nothing built for it (`release build` builds what
      // is declared): beside images that were built, it is promoted only when the record has one.
      const digestOf = (name: string) => imageRecord(record!, name)?.digest;
      const anyBuilt = builtImageArtifacts(ctx.config).some((a) => digestOf(a.name));
      const artifacts = builtImageArtifacts(ctx.config).filter(
        (a) => !a.implicit || !anyBuilt || digestOf(a.name),
      );
      checkPushed(ctx, artifacts);
      const missing = artifacts.map((a) => a.name).filter((name) => !digestOf(name));
      if (missing.length) {
        throw new UsageError(
          'RECORD_NO_DIGESTS',
          `the release record at ${ctx.recordPath} has no image digest for ${missing.join(', ')}`,
          {
            hint: 'run `release build` first (it pushes the images and records their digests), or pass --from <tag|digest>',
          },
        );
      }
      ctx.sources = artifacts.map((artifact) => ({
        artifact: artifact.name,
        repository: artifact.image,
        reference: imageRecord(record!, artifact.name)!.digest!,
      }));
    }
    io.progress(`${ctx.version} -> ${ctx.channel}${ctx.from ? ` from ${ctx.from}` : ''}`);
  },
};

/**
 * The record's images must be in the store promote writes: a build without `--push` left them in
 * the local layout (oci) or the Docker engine (docker), and the registry never got them. Said
 * before any request, with the command that puts them there.
 */
function checkPushed(ctx: PromoteContext, artifacts: readonly ImageArtifactConfig[]): void {
  const local = artifacts.flatMap((a) => {
    const build = imageRecord(ctx.record!, a.name)?.build;
    return build && !build.pushed ? [{ name: a.name, build }] : [];
  });
  if (local.length === 0) return;
  const engines = [...new Set(local.map((l) => l.build.engine))];
  const where = local.map((l) => `${l.name} (${l.build.reference})`).join(', ');
  throw new UsageError(
    'RECORD_NOT_PUSHED',
    `release build did not push ${local.length === 1 ? 'its image' : 'the images'} to ${ctx.config.registry}: ${where}`,
    {
      hint: `run \`release build ${engines.length === 1 ? `--engine ${engines[0]} ` : ''}--push\` (it pushes and records what it pushed), then promote again`,
    },
  );
}

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
