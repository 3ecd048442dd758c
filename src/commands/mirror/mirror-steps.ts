import { imagesWithRoles } from '../../config/artifacts.ts';
import { RuleError } from '../../errors.ts';
import { checkSet } from '../../mirror/check-set.ts';
import { collectSet } from '../../mirror/collect-set.ts';
import { latestRefusal, runAs, setSize, tagWrites } from '../../mirror/mirror-set.ts';
import { writeContent, writeTags } from '../../mirror/write-set.ts';
import type { Step } from '../../pipeline/step.ts';
import { printable } from '../../text/printable.ts';
import type { MirrorContext } from './mirror-context.ts';
import { mirrorVsaStep } from './mirror-vsa-step.ts';

const collectStep: Step<MirrorContext> = {
  title: 'Read the release set from the source',
  async run(ctx, io) {
    // One entry per image, carried once: the roles run from it are named, not copied again.
    const artifacts = imagesWithRoles(ctx.config).map((i) => ({
      name: i.artifact,
      repository: i.repository,
      roles: i.roles,
    }));
    ctx.set = await collectSet({
      store: ctx.from,
      version: ctx.version,
      artifacts,
      keys: { release: ctx.trusted },
    });
    const dropped = ctx.set.dropped.map(
      (d) => `${d.repository}@${d.digest} (a referrer of ${d.subject}): ${printable(d.reason, { max: 200 })}`,
    );
    if (dropped.length && ctx.strictReferrers)
      throw new RuleError(
        'MIRROR_REFERRER_REFUSED',
        `${ctx.from.name}: ${ctx.version} carries referrers the key does not verify: ${dropped.join('; ')}`,
        { hint: 'remove them from the source, or mirror without --strict-referrers to leave them behind' },
      );
    for (const line of dropped) ctx.warnings.push(`not carried: ${line}`);
    for (const image of ctx.set.images)
      io.progress(
        `${image.repository}:${image.tag} ${image.digest} (${image.children.length} platform image(s))${image.roles ? `, ${runAs(image)}` : ''}`,
      );
    io.progress(
      `${ctx.set.manifests.length} manifests, ${ctx.set.blobs.length} blobs, ${setSize(ctx.set)} bytes`,
    );
  },
};

const checkStep: Step<MirrorContext> = {
  title: 'Check signatures and the release set with the public key',
  async run(ctx) {
    const problems = await checkSet(ctx.from, ctx.trusted, ctx.set!);
    if (problems.length)
      throw new RuleError(
        'MIRROR_REFUSED',
        `${ctx.from.name}: ${ctx.version} is not loaded: ${problems.join('; ')}`,
        {
          hint: 'mirror from a source holding the release as it was signed, with the key of signing.publicKey',
        },
      );
  },
};

const planTagsStep: Step<MirrorContext> = {
  title: 'Decide the tags',
  async run(ctx, io) {
    let latest = ctx.latest;
    if (latest) {
      const tags = [];
      for (const image of ctx.set!.images)
        tags.push(...(await ctx.to.listTags(image.repository).catch(() => [])));
      ctx.latestKept = latestRefusal(ctx.version, tags);
      if (ctx.latestKept) {
        latest = false;
        io.progress(`latest stays: ${ctx.latestKept}`);
      }
    }
    ctx.tags = tagWrites(ctx.set!, latest);
  },
};

const writeContentStep: Step<MirrorContext> = {
  title: 'Copy blobs and manifests (what the target lacks)',
  writes: true,
  async run(ctx, io) {
    ctx.counts = await writeContent(ctx.from, ctx.to, ctx.set!, (t) => io.progress(t));
  },
};

const writeTagsStep: Step<MirrorContext> = {
  title: 'Write the tags (version tags, then latest)',
  writes: true,
  async run(ctx, io) {
    ctx.counts!.tags = await writeTags(ctx.to, ctx.set!, ctx.tags!, (t) => io.progress(t));
    const packed = await ctx.finish?.();
    if (packed) ctx.archive = { ...packed, file: ctx.to.name };
  },
};

/** `release mirror`: read the set, check it with the public key, then content, then tags last. */
export const mirrorPipeline: readonly Step<MirrorContext>[] = [
  collectStep, // every image, child, referrer and the rc, manifests only
  checkStep, // nothing is written unless every image and child is signed and the set is complete
  mirrorVsaStep, // verification summaries checked with verifier.publicKey, else left behind
  planTagsStep, // version tags, then latest only when allowed
  writeContentStep, // blobs (checked as read), manifests, referrer indexes; skips what is there
  writeTagsStep, // tags last; an archive is packed once all is in it
];
