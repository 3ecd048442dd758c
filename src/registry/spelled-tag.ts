import { tagSpellings } from '../version/image-tag.ts';
import type { Descriptor, ImageStore } from './store.ts';

/**
 * A version tag as `repository` spells it: look-ups accept either spelling and read the tag that
 * exists (DESIGN.md "Channels and tags"), so `v2026.7.0` asked of a project tagging `2026.7.0`
 * is `2026.7.0`. The spelling asked for when neither exists (or the store cannot say), so what is
 * missing is named as the user wrote it. A tag that is not a version (`latest`) is as given.
 */
export async function spelledTagIn(store: ImageStore, repository: string, tag: string): Promise<string> {
  return (await spelledTagReadIn(store, repository, tag)).tag;
}

/**
 * `spelledTagIn`, with the descriptor the spelling was found by: a caller that reads the tag next
 * takes it from here instead of asking the store a second time (and both readings are one answer).
 */
export async function spelledTagReadIn(
  store: ImageStore,
  repository: string,
  tag: string,
): Promise<{ tag: string; descriptor?: Descriptor }> {
  const spellings = tagSpellings(tag);
  if (spellings.length === 1) return { tag };
  for (const spelling of spellings) {
    const descriptor = await store.resolve(repository, spelling).catch(() => undefined);
    if (descriptor) return { tag: spelling, descriptor };
  }
  return { tag };
}
