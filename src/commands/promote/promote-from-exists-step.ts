import { UsageError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { tagSpellings } from '../../version/image-tag.ts';
import type { PromoteContext } from './promote-context.ts';

/**
 * `--from` names a tag the store has in neither spelling: refused (exit 2) naming the rcs nearest
 * to it that do exist, after the rules that need no store have spoken.
 */
export const promoteFromExistsStep: Step<PromoteContext> = {
  title: 'Check the --from tag exists',
  skip: (ctx) => (ctx.fromMissing ? false : ctx.from ? 'found in the store' : 'no --from'),
  async run(ctx) {
    const { repository, nearest } = ctx.fromMissing!;
    throw new UsageError(
      'SOURCE_MISSING',
      `${repository} has no tag ${tagSpellings(ctx.from!).join(' nor ')}`,
      {
        hint: nearest.length
          ? `the nearest rcs there: ${nearest.join(', ')}; pass one of them to --from`
          : 'no rc is in the store: promote one first (release promote --channel rc), or pass --from <digest>',
      },
    );
  },
};
