import { orderedWrites, short } from '../../channels/promotion-plan.ts';
import { putTagBack, referenceOf } from '../../registry/apply-promotion.ts';
import type { PromoteContext } from './promote-context.ts';

/**
 * After the images were promoted, something later failed (the package's dist-tags): put every
 * image floating tag the promotion wrote (`latest`, `dev`) back to its previous digest, or remove
 * it when it did not exist. Version tags stay: they are correct and a re-run skips them.
 * Returns lines for the output: what was put back and what could not be.
 */
export async function putBackImageFloatingTags(
  ctx: PromoteContext,
): Promise<{ undone: string[]; notUndone: string[] }> {
  const undone: string[] = [];
  const notUndone: string[] = [];
  const written = new Set((ctx.result?.written ?? []).map((w) => w.reference));
  const store = ctx.store;
  for (const write of orderedWrites(ctx.plan!).filter((w) => w.kind === 'floating')) {
    const reference = referenceOf(store, write.repository, write.tag);
    if (!written.has(reference)) continue;
    try {
      await putTagBack(store, write);
      undone.push(`${reference} back to ${write.from === null ? '(removed)' : short(write.from)}`);
    } catch (error) {
      notUndone.push(`${reference} stays at ${short(write.to)}: ${(error as Error).message}`);
    }
  }
  return { undone, notUndone };
}
