import { createHash } from 'node:crypto';
import { signArchive } from '../../archives/archive-signature.ts';
import { short } from '../../channels/promotion-plan.ts';
import { restampCliArchive } from '../../cli-package/restamp-archive.ts';
import { cliArtifact, imageArtifact } from '../../config/artifacts.ts';
import { versionEnv } from '../../config/version-variables.ts';
import { isReleaseError, SIGNING_KEY_MISSING } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import type { Manifest } from '../../registry/store.ts';
import { layerScanCacheFor } from '../../restamp/layer-scan-cache.ts';
import { restampImage } from '../../restamp/restamp-image.ts';
import { type ArchiveSigner, archiveSigningKeyMissing } from '../../restamp/restamp-version-layer.ts';
import type { RebuildComparison } from '../../reversion/compare-rebuild.ts';
import { reversionCliArchive } from '../../reversion/reversion-cli-archive.ts';
import { type ImageReversion, imageReversionOfRc } from '../../reversion/reversion-image.ts';
import { readSigningKey } from '../../signing/key-files.ts';
import { sameTag } from '../../version/compare.ts';
import { imageTagOf } from '../../version/image-tag.ts';
import { parseVersion } from '../../version/parse.ts';
import type { PromoteContext } from './promote-context.ts';

/**
 * `release promote --channel release` of images built as another version (an rc): each image is
 * re-stamped so the release reports its own tag (spec section 9, item 2): the rc's code layers
 * unchanged, a new config and version layer (src/restamp/). Computed here (a dry run shows the
 * release digests), pushed by the next step; images already built as this version (no --from)
 * are promoted as they are. A signed CLI archive in a version layer is re-signed with the release
 * key, unlocked only when such an archive is met.
 */
export const promoteRestampStep: Step<PromoteContext> = {
  title: 'Re-stamp the release candidate as the release',
  skip: (ctx) =>
    ctx.channel !== 'release'
      ? `only a full release reports a version other than its build's (${ctx.channel} copies manifests)`
      : false,
  async run(ctx, io) {
    const tag = imageTagOf(parseVersion(ctx.version!));
    const restamped: NonNullable<PromoteContext['restamped']> = {};
    // Each layer's version scan is kept for the verifies of this release (layers are immutable).
    const layerScans = layerScanCacheFor(ctx.env);
    for (const source of ctx.sources!) {
      const { artifact, repository } = source;
      const rc = await ctx.store.getManifest(repository, source.reference);
      if (!rc) continue; // the plan step reports a missing source
      const progress = (line: string) => io.progress(`${artifact}: ${line}`);
      const baked = await imageReversion(ctx, source, rc, tag, progress);
      const image = await restampImage(ctx.store, repository, rc, tag, {
        sign: archiveSigner(ctx),
        reversionArchive: cliReversion(ctx, tag, (line) => io.progress(`cli: ${line}`)),
        ...(baked ? { rebuiltFile: baked.file } : {}),
        layerScans,
      });
      if (image.sourceVersion === undefined || sameTag(image.sourceVersion, tag)) {
        // Built from the release's own tag (or a backport's): every file already says it.
        io.progress(
          `${artifact}: already ${image.sourceVersion ?? 'without a version'}, promoted as it is${image.sourceVersion ? ' (its files, baked ones included, carry it)' : ''}`,
        );
        continue;
      }
      if (baked) {
        const comparison = baked.comparison();
        ctx.imageRebuilds = {
          ...ctx.imageRebuilds,
          [artifact]: { strategy: baked.strategy, reason: baked.reason, ...comparison },
        };
        progress(`${baked.strategy}: ${comparisonSummary(comparison)}`);
      } else if (image.topLayer) {
        // Built by another engine or CI (no version layer of ours): the files that carry the rc's
        // version were rewritten in a new top layer; the proof goes into the signature's statement.
        const { comparison, files } = image.topLayer;
        const reason = `no version layer of ours: ${files.length} file(s) carrying ${image.sourceVersion} rewritten in a new top layer`;
        ctx.imageRebuilds = {
          ...ctx.imageRebuilds,
          [artifact]: { strategy: 'rewrite', reason, ...comparison },
        };
        progress(`rewrite: ${reason} (${comparisonSummary(comparison)})`);
      }
      ctx.warnings.push(...image.warnings);
      restamped[artifact] = image;
      source.reference = image.manifest.descriptor.digest;
      io.progress(
        `${artifact}: ${image.sourceVersion} ${short(image.from)} -> ${tag} ${short(image.manifest.descriptor.digest)}` +
          (image.versionLayer
            ? ' (config and version layer)'
            : image.topLayer
              ? ' (config and a new top layer)'
              : ' (config only)'),
      );
    }
    ctx.restamped = restamped;
  },
};

/**
 * An image whose build baked the version into code files (format `rebuild` in its version layer):
 * how the release re-versions them, rebuilt from the rc's commit or rewritten in the rc's copies
 * (reversion/reversion-image.ts). A rebuild is proven before any write; a rewrite is proven as
 * its files are made, and both proofs go into the release signature's statement.
 */
async function imageReversion(
  ctx: PromoteContext,
  source: NonNullable<PromoteContext['sources']>[number],
  rc: Manifest,
  version: string,
  progress: (line: string) => void,
): Promise<ImageReversion | undefined> {
  const from = ctx.from ? parseVersion(ctx.from) : undefined;
  const made = await imageReversionOfRc({
    store: ctx.store,
    repository: source.repository,
    rc,
    artifact: imageArtifact(ctx.config, source.artifact),
    projectDir: ctx.configDir,
    rcTag: from && from.kind !== 'invalid' ? imageTagOf(from) : undefined,
    version,
    env: { ...ctx.env, ...versionEnv(ctx.config, version) },
    progress,
  });
  if (made) progress(`${made.strategy}: ${made.reason}`);
  return made;
}

/**
 * The release's CLI archive (in the API image's version layer), made as the CLI declares or its
 * files imply (reversion/reversion-cli-archive.ts): rebuilt from the rc's commit and proven the
 * rc's code modulo version strings, kept, or (undefined) its package.json re-written in place.
 * A refused rebuild throws here, before any write. Needs the rc's tag (the commit to rebuild);
 * `--from <digest>` keeps the default.
 */
function cliReversion(
  ctx: PromoteContext,
  version: string,
  progress: (line: string) => void,
): (path: string, rcArchive: Buffer) => Promise<Buffer | undefined> {
  // The platform children of an index carry the same archive: it is made (rebuilt) once.
  const made = new Map<string, Promise<Buffer | undefined>>();
  return (_path, rcArchive) => {
    const key = createHash('sha256').update(rcArchive).digest('hex');
    let bytes = made.get(key);
    if (!bytes) {
      bytes = makeCliArchive(ctx, version, rcArchive, progress);
      made.set(key, bytes);
    }
    return bytes;
  };
}

async function makeCliArchive(
  ctx: PromoteContext,
  version: string,
  rcArchive: Buffer,
  progress: (line: string) => void,
): Promise<Buffer | undefined> {
  const from = ctx.from ? parseVersion(ctx.from) : undefined;
  if (!from || from.kind === 'invalid') return undefined;
  const made = await reversionCliArchive({
    cli: cliArtifact(ctx.config),
    projectDir: ctx.configDir,
    rcTag: imageTagOf(from),
    version,
    rcArchive,
    env: { ...ctx.env, ...versionEnv(ctx.config, version) },
    progress,
    restampNpm: (archive, v, files) => restampCliArchive(archive, v, {}, files),
  });
  ctx.cliReversion = made;
  progress(
    `${made.strategy}: ${made.reason}${made.comparison ? ` (${comparisonSummary(made.comparison)})` : ''}`,
  );
  return made.bytes;
}

/** `12 files identical, 2 differ in version strings only`. */
export function comparisonSummary(c: RebuildComparison): string {
  return `${c.identical.length} file(s) byte-identical to the rc's, ${c.versionOnly.length} differ in version strings only: ${
    c.versionOnly.map((d) => `${d.path} (${d.reason})`).join(', ') || 'none'
  }`;
}

/**
 * The release key signs a re-packed CLI archive: unlocked on first use (most images carry no
 * signed archive), the same key the signing steps then use, so the svc's baked key, the image
 * signatures and the archive all name one key. Without a key, restampVersionLayer's refusal
 * stands: no release may ship an archive its own svc users would refuse.
 */
function archiveSigner(ctx: PromoteContext): ArchiveSigner {
  return async (archive, path) => {
    try {
      ctx.archiveSigningKey ??= await readSigningKey({ ...ctx, keyPath: ctx.keyPath });
    } catch (error) {
      if (isReleaseError(error) && error.code === SIGNING_KEY_MISSING) throw archiveSigningKeyMissing(path);
      throw error;
    }
    return signArchive(archive, ctx.archiveSigningKey.privateKey);
  };
}
