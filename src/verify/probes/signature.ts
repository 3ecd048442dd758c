import { platformChildren } from '../../registry/platform-children.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { CheckOptions } from '../../signing/image-signature.ts';
import type { PublicSigningKey } from '../../signing/keys.ts';
import type { PlatformSignatureCheck } from '../../signing/platform-signatures.ts';
import { printable } from '../../text/printable.ts';

import type { SignatureReading } from '../types.ts';

/** What to check: one repository and the digests found for it (running, else the tag's). */
export interface SignatureSubject {
  artifact: string;
  repository: string;
  tag: string;
  running: { source: string; digest: string | undefined }[];
}

/**
 * Check the signatures of every digest of one image: each running digest (a platform image of
 * the tag's index counts only with its index signed too), else the tag's digest (an index with
 * every platform image). Sigstore is loaded only here, when a signature is actually checked, so
 * `release verify` without a key starts as fast as before.
 * Never throws: a store that cannot be read gives an `unchecked` reading with the error.
 */
export async function probeSignatures(
  store: ImageStore,
  trusted: PublicSigningKey,
  subject: SignatureSubject,
  options: CheckOptions = {},
): Promise<SignatureReading[]> {
  const base = { artifact: subject.artifact, repository: subject.repository, keyId: trusted.keyId };
  const tagRef = `${subject.repository}:${subject.tag}`;
  // No digest could be checked: the reading names the tag and says why.
  const unchecked = (reason: string): SignatureReading => ({
    ...base,
    digest: undefined,
    of: tagRef,
    running: false,
    status: 'unchecked',
    reason,
  });
  try {
    const [{ checkImageSignature }, { checkImageSetSignature, combineSetStatus }] = await Promise.all([
      import('../../signing/image-signature.ts'),
      import('../../signing/platform-signatures.ts'),
    ]);
    const repository = subject.repository;
    const running = subject.running.filter(
      (r): r is { source: string; digest: string } => r.digest !== undefined,
    );
    if (running.length === 0) {
      const tag = await store.getManifest(repository, subject.tag);
      if (!tag) return [unchecked(`${tagRef} is not in ${store.name}`)];
      // No engine read: the tag's digest, and for an index each platform image a node would run.
      const digest = tag.descriptor.digest;
      const check = await checkImageSetSignature(store, trusted, { repository, digest }, options);
      const platforms = platformStatuses(check);
      return [
        {
          ...base,
          digest,
          of: tagRef,
          running: false,
          status: check.status,
          reason: check.reason,
          ...(platforms ? { platforms } : {}),
        },
      ];
    }
    // Only to know whether what runs is a platform image of the tag (the registry step reports an
    // unreadable tag); what runs is checked either way.
    const tag = await store.getManifest(repository, subject.tag).catch(() => undefined);
    const children = tag ? (platformChildren(tag.bytes) ?? []) : [];
    return await Promise.all(
      running.map(async (r): Promise<SignatureReading> => {
        // An index that runs (the engine reports the digest it pulled by) is held to every platform.
        const own = await checkImageSetSignature(store, trusted, { repository, digest: r.digest }, options);
        const child = children.find((c) => c.digest === r.digest);
        const reading = { ...base, digest: r.digest, of: r.source, running: true };
        if (!child || !tag) {
          const platforms = platformStatuses(own);
          return { ...reading, status: own.status, reason: own.reason, ...(platforms ? { platforms } : {}) };
        }
        // A platform image of the tag's index runs: it is vouched for when it and its index both are.
        const index = await checkImageSignature(
          store,
          trusted,
          { repository, digest: tag.descriptor.digest },
          options,
        );
        const both = combineSetStatus(index, [{ platform: child.platform, check: own }]);
        return {
          ...reading,
          status: both.status,
          reason: both.status === 'valid' ? `${both.reason}, as is its index` : both.reason,
          platform: child.platform,
          index: tag.descriptor.digest,
        };
      }),
    );
  } catch (error) {
    const message = printable((error as Error).message, { max: 300 });
    return [{ ...unchecked(message), error: message }];
  }
}

/** Each platform image's own status, for the reading of an index. */
function platformStatuses(check: { platforms?: PlatformSignatureCheck[] }): SignatureReading['platforms'] {
  return check.platforms?.map((p) => ({ platform: p.platform, digest: p.digest, status: p.check.status }));
}
