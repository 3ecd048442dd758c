import { join } from 'node:path';
import { artifactWithRole, builderOf, imageArtifact, rolesOfImage } from '../../config/artifacts.ts';
import { ExternalError } from '../../errors.ts';
import { attachEvidence } from '../../evidence/attach-evidence.ts';
import { archiveInImage, childDigests } from '../../evidence/release-images.ts';
import { type ReleaseSetImage, releaseSetStatement } from '../../evidence/release-set.ts';
import { writeFilesAtomically } from '../../files/atomic-write.ts';
import type { Step } from '../../pipeline/step.ts';
import { cliRecord } from '../../record/release-record.ts';
import type { SigningKey } from '../../signing/keys.ts';
import type { PromoteContext } from './promote-context.ts';

/** Beside the record: the release-set statement, and its Sigstore bundle when signed. */
export const RELEASE_SET_FILE = 'release-set.intoto.json';
export const RELEASE_SET_BUNDLE_FILE = 'release-set.sigstore.json';

/**
 * rc and release: one statement naming every artifact of the release (each image digest, index
 * and children, the CLI archive, the npm package when published), signed with the release key
 * and attached to every image of the set. The statement is made from the release alone, so
 * promoting the same release again finds it attached and adds nothing.
 */
export const promoteReleaseSetStep: Step<PromoteContext> = {
  title: 'Attest the release set',
  writes: true,
  completesWrites: true, // the tags are out: the set that names them must follow
  skip: (ctx) =>
    ctx.channel === 'dev'
      ? 'the dev channel has no release set'
      : !ctx.plan?.artifacts.length
        ? 'no image was promoted'
        : false,
  async run(ctx, io) {
    const plan = ctx.plan!;
    const images: ReleaseSetImage[] = [];
    for (const a of plan.artifacts) {
      const madeFrom = ctx.restamped?.[a.artifact]?.from;
      const builder = imageArtifact(ctx.config, a.artifact);
      const roles = builder ? rolesOfImage(ctx.config, builder.image) : [];
      images.push({
        ...(roles.length > 1
          ? { roles: Object.fromEntries(roles.map((r) => [r.name, r.role ?? 'none'])) }
          : {}),
        artifact: a.artifact,
        repository: a.repository,
        digest: a.source,
        children: await childDigests(ctx.store, a.repository, a.source),
        ...(madeFrom ? { madeFrom } : {}),
      });
    }
    const statement = releaseSetStatement({
      version: plan.tag,
      channel: plan.channel as 'rc' | 'release',
      commit: ctx.commit ?? ctx.record?.commit ?? null,
      images,
      ...(await archiveOf(ctx, images)),
      ...(ctx.cliPackage && (ctx.cliPackage.published || !ctx.cliPackage.plan.publish)
        ? {
            npmPackage: {
              name: ctx.cliPackage.plan.name,
              version: ctx.cliPackage.plan.version,
              integrity: ctx.cliPackage.integrity,
            },
          }
        : {}),
    });
    const key = releaseKey(ctx);
    const dir = join(ctx.recordPath, '..');
    if (!key) {
      await writeFilesAtomically([{ path: join(dir, RELEASE_SET_FILE), content: statement }]);
      const text = `the release set of ${plan.tag} is not signed (no signing key): written unsigned to ${RELEASE_SET_FILE}, attached to no image`;
      if (ctx.config.signing?.publicKey) ctx.warnings.push(text);
      io.progress(text);
      return;
    }
    let bundle: Uint8Array | undefined;
    let added = 0;
    try {
      for (const image of images) {
        for (const digest of [image.digest, ...image.children]) {
          const target = { repository: image.repository, digest, kind: 'releaseSet' as const };
          const outcome = await attachEvidence(ctx.store, key, target, statement, {
            formats: ctx.config.signing?.formats,
          });
          ctx.warnings.push(...outcome.warnings);
          // One bundle for the file: the first attached, or the one already there.
          bundle ??= outcome.bundle;
          if (outcome.status === 'attached') added++;
        }
      }
    } catch (error) {
      throw new ExternalError(
        'RELEASE_SET_FAILED',
        `${plan.tag} is tagged but its release set is not attached everywhere: ${(error as Error).message}`,
        {
          hint: 'run this promotion again once the store answers (it attaches what is missing)',
          cause: error,
        },
      );
    }
    await writeFilesAtomically([
      { path: join(dir, RELEASE_SET_FILE), content: statement },
      { path: join(dir, RELEASE_SET_BUNDLE_FILE), content: bundle! },
    ]);
    io.progress(`${images.length} images, ${added ? `attached to ${added} manifests` : 'already attached'}`);
  },
};

/** The CLI archive the api image ships; else the record's, for an rc built without one in an image. */
async function archiveOf(ctx: PromoteContext, images: ReleaseSetImage[]) {
  // The image an api role runs, by the artifact that builds it (one image may run several roles).
  const role = artifactWithRole(ctx.config, 'api');
  const api = role && builderOf(ctx.config, role);
  const image = images.find((i) => i.artifact === api?.name);
  const inImage = image ? await archiveInImage(ctx.store, image.repository, image.digest) : undefined;
  if (inImage) return { archive: inImage };
  const cli = ctx.record && cliRecord(ctx.record);
  if (ctx.channel === 'rc' && cli?.sha256 && cli.archive)
    return { archive: { name: cli.archive.split('/').at(-1)!, sha256: cli.sha256 } };
  return {};
}

/**
 * The key the signing step unlocked before any tag was written (never read here: after the
 * writes, a key that cannot be had must not fail the promotion).
 */
function releaseKey(ctx: PromoteContext): SigningKey | undefined {
  return ctx.sign === false ? undefined : ctx.signingKey;
}
