import { tagSpellings } from '../version/image-tag.ts';
import type { ImageStore } from './store.ts';

/**
 * A version tag as `repository` spells it: look-ups accept either spelling and read the tag that
 * exists (DESIGN.md "Channels and tags"), so `v2026.7.0` asked of a project tagging `2026.7.0`
 * is `2026.7.0`. The spelling asked for when neither exists (or the store cannot say), so what is
 * missing is named as the user wrote it. A tag that is not a version (`latest`) is as given.
 */
export async function spelledTagIn(store: ImageStore, repository: string, tag: string): Promise<string> {
  const spellings = tagSpellings(tag);
  if (spellings.length === 1) return tag;
  for (const spelling of spellings) {
    const there = await store.resolve(repository, spelling).catch(() => undefined);
    if (there) return spelling;
  }
  return tag;
}
