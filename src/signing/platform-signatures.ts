import { RuleError } from '../errors.ts';
import { matchPlatforms, type PlatformChild, platformChildren } from '../registry/platform-children.ts';
import type { ImageStore } from '../registry/store.ts';
import {
  type CheckOptions,
  checkImageSignature,
  type SignatureCheck,
  type SignedImageRef,
  type SignOptions,
  signAndConfirm,
} from './image-signature.ts';
import type { PublicSigningKey, SigningKey } from './keys.ts';
import type { ImageClaim } from './statement.ts';

/** One platform image of an index, signed: what a node of that platform runs is vouched for. */
export interface SignedPlatform {
  platform: string;
  digest: string;
  signature: string;
  /** A release child: the rc child of the same platform it was made from. */
  madeFrom?: string;
}

export interface SignedImageSet {
  status: 'signed' | 'already-signed';
  /** The signature of the digest named (the index, for a multi-platform image). */
  signature: string;
  /** An index: each platform child, signed before the index. */
  platforms?: SignedPlatform[];
}

/**
 * Sign an image and, when it is a multi-platform index, each platform child first: a node pulls
 * and runs its platform's child digest, so a signature on the index alone proves nothing about
 * what runs. With `madeFrom` (a release re-stamped from an rc), each child is bound to the rc
 * child of its platform, and the index to the rc index. A release child with no rc child of its
 * platform is refused: it would be signed as made from an rc it is not in.
 */
export async function signImageSet(
  store: ImageStore,
  key: SigningKey,
  // The index's claim: what its children are made from is found here; what was re-versioned
  // (`reversion`) is stated on the index, the image a release is named by.
  image: ImageClaim,
  label: string,
  options: SignOptions = {},
): Promise<SignedImageSet> {
  const children = await childrenOf(store, image);
  let platforms: SignedPlatform[] | undefined;
  // An rc signed before its children were (an index alone) is completed: that is a signing too.
  let childSigned = false;
  if (children) {
    const rcChildren = image.madeFrom
      ? await childrenOf(store, { ...image, digest: image.madeFrom })
      : undefined;
    const match = rcChildren ? matchPlatforms(rcChildren, children) : undefined;
    if (match && match.extra.length > 0) {
      throw new RuleError(
        'RELEASE_PLATFORM_NOT_IN_RC',
        `${label}: ${match.extra.join(', ')} of ${image.repository}@${image.digest} is not in the rc ${image.madeFrom}`,
        { hint: 'release only platforms the rc carries: promote --channel release --from <rc>' },
      );
    }
    platforms = [];
    for (const child of children) {
      const from = match?.pairs.find((p) => p.platform === child.platform)?.rc;
      const outcome = await signAndConfirm(
        store,
        key,
        { repository: image.repository, digest: child.digest, ...(from ? { madeFrom: from } : {}) },
        `${label} (${child.platform})`,
        options,
      );
      childSigned ||= outcome.status === 'signed';
      platforms.push({ ...child, signature: outcome.signature, ...(from ? { madeFrom: from } : {}) });
    }
  }
  const outcome = await signAndConfirm(store, key, image, label, options);
  return {
    ...outcome,
    ...(childSigned ? { status: 'signed' as const } : {}),
    ...(platforms ? { platforms } : {}),
  };
}

export interface PlatformSignatureCheck {
  platform: string;
  digest: string;
  check: SignatureCheck;
}

/**
 * The signatures of an image and, for an index, of each platform child. `status` is valid only
 * when the digest named and every child carry a valid signature; the reason names what does not.
 */
export async function checkImageSetSignature(
  store: ImageStore,
  trusted: PublicSigningKey,
  image: SignedImageRef,
  options: CheckOptions = {},
): Promise<SignatureCheck & { platforms?: PlatformSignatureCheck[] }> {
  const own = await checkImageSignature(store, trusted, image, options);
  const children = await childrenOf(store, image);
  if (!children) return own;
  const platforms: PlatformSignatureCheck[] = [];
  for (const child of children) {
    const check = await checkImageSignature(
      store,
      trusted,
      { repository: image.repository, digest: child.digest },
      options,
    );
    platforms.push({ ...child, check });
  }
  return { ...combineSetStatus(own, platforms), platforms };
}

/**
 * The verdict on an index and its children together: the first one not valid decides (the index
 * first), and its reason says which platform it is. Pure.
 */
export function combineSetStatus(
  own: SignatureCheck,
  platforms: { platform: string; check: Pick<SignatureCheck, 'status' | 'reason'> }[],
): SignatureCheck {
  if (own.status !== 'valid') return own;
  const bad = platforms.find((p) => p.check.status !== 'valid');
  if (!bad) return own;
  return { ...own, status: bad.check.status, reason: `the ${bad.platform} image: ${bad.check.reason}` };
}

/** `, with linux/amd64, linux/arm64`: the platform children signed with an index (progress lines). */
export function platformsSigned(platforms: { platform: string }[] | undefined): string {
  return platforms?.length ? `, with ${platforms.map((p) => p.platform).join(', ')}` : '';
}

async function childrenOf(store: ImageStore, image: SignedImageRef): Promise<PlatformChild[] | undefined> {
  const manifest = await store.getManifest(image.repository, image.digest);
  return manifest ? platformChildren(manifest.bytes) : undefined;
}
