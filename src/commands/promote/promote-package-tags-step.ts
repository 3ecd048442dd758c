import { ExternalError, isReleaseError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { PENDING_DIST_TAG, packageRef, publishedNote, putBackDistTags } from './package-promotion.ts';
import type { PromoteContext } from './promote-context.ts';
import { putBackImageFloatingTags } from './put-back-image-floating-tags.ts';

/**
 * Move the package's dist-tags (`latest`, `next` or `dev`) once the images' tags are in place,
 * then drop the pending tag of the publish. If a dist-tag cannot be moved, every image floating
 * tag and every dist-tag already moved is put back: images and package move all or nothing.
 */
export const promotePackageTagsStep: Step<PromoteContext> = {
  title: 'Move the CLI package dist-tags',
  writes: true,
  completesWrites: true, // images and package move together, even when stopped mid-way
  skip: (ctx) =>
    !ctx.cliPackage
      ? (ctx.cliNotPublished ?? 'artifacts.cli.publish is off')
      : ctx.dryRun
        ? 'dry run'
        : ctx.cliPackage.plan.distTags.length === 0 && !ctx.cliPackage.published
          ? 'every dist-tag is already in place'
          : false,
  async run(ctx, io) {
    const p = ctx.cliPackage!;
    for (const write of p.plan.distTags) {
      try {
        p.moved.push(write); // in flight: its fate is unknown if the call fails
        await p.npm.addDistTag(p.plan.name, write.to, write.tag);
      } catch (error) {
        await putBackDistTags(p);
        const images = await putBackImageFloatingTags(ctx);
        const lines = [
          `moving the dist-tag ${write.tag} of ${p.plan.name} to ${write.to} failed: ${(error as Error).message}`,
          `undone: ${[...images.undone, ...p.undone].join('; ') || 'nothing'}`,
          ...(images.notUndone.length || p.notUndone.length
            ? [`could NOT be undone: ${[...images.notUndone, ...p.notUndone].join('; ')}`]
            : []),
          ...(p.published ? [publishedNote(p)] : []),
        ];
        throw new ExternalError(isReleaseError(error) ? error.code : 'NPM_FAILED', lines.join('\n'), {
          hint: `${isReleaseError(error) && error.hint ? `${error.hint}; then ` : ''}run the same promote again`,
          cause: error,
        });
      }
      io.progress(`${p.plan.name} dist-tag ${write.tag} -> ${write.to}`);
    }
    if (p.published) {
      try {
        await p.npm.removeDistTag(p.plan.name, PENDING_DIST_TAG);
      } catch (error) {
        ctx.warnings.push(
          `the dist-tag ${PENDING_DIST_TAG} of ${packageRef(p)} could not be removed (${(error as Error).message}); remove it with npm dist-tag rm ${p.plan.name} ${PENDING_DIST_TAG}`,
        );
      }
    }
  },
};
