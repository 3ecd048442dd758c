import { readEvidence } from '../evidence/attach-evidence.ts';
import { releaseSetClaim } from '../evidence/release-set.ts';
import { FORMER_ARTIFACT_TYPE, PREDICATE } from '../evidence/statements.ts';
import { listBundleReferrers } from '../registry/referrers.ts';
import type { ImageStore } from '../registry/store.ts';
import { checkImageSignature } from '../signing/image-signature.ts';
import type { PublicSigningKey } from '../signing/keys.ts';
import { type MirrorSet, releaseSetMismatch } from './mirror-set.ts';

/**
 * Every reason the set must not be loaded, checked against the public key alone before anything
 * is written: each image and each platform child signed by the key, and, where a release set is
 * attached, one signed by the key naming exactly the images being loaded at that tag. Empty: load.
 * (Blob digests are checked as each blob is read, before it is written; tags come after that.)
 */
export async function checkSet(
  store: ImageStore,
  trusted: PublicSigningKey,
  set: MirrorSet,
): Promise<string[]> {
  const problems: string[] = [];
  for (const image of set.images) {
    for (const digest of [image.digest, ...image.children]) {
      const check = await checkImageSignature(store, trusted, { repository: image.repository, digest });
      if (check.status !== 'valid')
        problems.push(
          `${image.repository}@${digest} (${image.tag}${digest === image.digest ? '' : ', platform image'}): ${check.reason}`,
        );
    }
    const sets = await listBundleReferrers(store, image.repository, image.digest, {
      predicateType: PREDICATE.releaseSet,
      formerArtifactType: FORMER_ARTIFACT_TYPE.releaseSet,
    });
    if (sets.length === 0) continue; // no evidence was made for this release: signatures carry it
    const entries = await readEvidence(store, trusted, {
      repository: image.repository,
      digest: image.digest,
      kind: 'releaseSet',
    });
    const valid = entries.find((e) => e.status === 'valid' && e.statement);
    if (!valid) {
      problems.push(
        `${image.repository}:${image.tag}: no release set signed by the key (${entries.map((e) => e.reason).join('; ')})`,
      );
      continue;
    }
    const claim = releaseSetClaim(valid.statement!.predicate);
    if (typeof claim === 'string') {
      problems.push(`${image.repository}:${image.tag}: ${claim}`);
      continue;
    }
    const mismatch = releaseSetMismatch(
      claim.artifacts,
      set.images.filter((i) => i.tag === image.tag),
    );
    if (mismatch) problems.push(`the release set of ${image.tag}: ${mismatch}`);
  }
  return [...new Set(problems)];
}
