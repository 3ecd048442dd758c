import type { ReleaseImage, ReleaseTarget } from './gitops-types.ts';
import { parseImageRef, splitTagValue } from './image-ref.ts';

/** The value a place needs, or why it cannot be given one. */
export type Wanted = { value: string } | { unplaced: string };

/**
 * The digest a place should carry: the release's when pinning; when the place is pinned already
 * (mattermost's `tag: 11.6.1@sha256:…`), the release's too, since a stale digest would keep
 * deploying the old image whatever the tag says. Unknown then: verify keeps the place's own and
 * compares the tag; bump refuses rather than silently dropping or keeping a pin.
 */
export function wantedDigest(
  had: string | undefined,
  image: ReleaseImage,
  target: ReleaseTarget,
): { digest?: string } | { unplaced: string } {
  if (target.pinDigest) {
    return image.digest
      ? { digest: image.digest }
      : { unplaced: `--pin-digest: the release record has no digest for ${image.image}` };
  }
  if (had === undefined) return {};
  if (image.digest) return { digest: image.digest };
  if (target.mode === 'verify') return { digest: had };
  return {
    unplaced: `pinned by digest (${had.slice(0, 19)}…) and the release's digest of ${image.image} is unknown`,
  };
}

/** A `tag` value: `v1.4.0`, or `v1.4.0@sha256:…` when pinned. */
export function wantedTag(current: string | null, image: ReleaseImage, target: ReleaseTarget): Wanted {
  const digest = wantedDigest(current ? splitTagValue(current).digest : undefined, image, target);
  if ('unplaced' in digest) return digest;
  return { value: digest.digest ? `${target.tag}@${digest.digest}` : target.tag };
}

/** A whole reference (`image:` of a container or a Compose service): its repository kept. */
export function wantedReference(current: string, image: ReleaseImage, target: ReleaseTarget): Wanted {
  const ref = parseImageRef(current);
  const digest = wantedDigest(ref.digest, image, target);
  if ('unplaced' in digest) return digest;
  return { value: `${ref.repository}:${target.tag}${digest.digest ? `@${digest.digest}` : ''}` };
}
