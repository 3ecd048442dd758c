import type { ImageStore } from '../../registry/store.ts';
import { printable } from '../../shared/printable.ts';
import type { PublicSigningKey } from '../../signing/keys.ts';

import type { ArtifactName, SignatureReading } from '../types.ts';

/** What to check: one repository and the digests found for it (running, else the tag's). */
export interface SignatureSubject {
  artifact: ArtifactName;
  repository: string;
  tag: string;
  running: { source: string; digest: string | undefined }[];
}

/**
 * Check the signatures of every digest of one image. Sigstore is loaded only here, when a
 * signature is actually checked, so `release verify` without a key starts as fast as before.
 * Never throws: a store that cannot be read gives an `unchecked` reading with the error.
 */
export async function probeSignatures(
  store: ImageStore,
  trusted: PublicSigningKey,
  subject: SignatureSubject,
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
    const { checkImageSignature } = await import('../../signing/image-signature.ts');
    let targets = subject.running
      .filter((r): r is { source: string; digest: string } => r.digest !== undefined)
      .map((r) => ({ of: r.source, digest: r.digest, running: true }));
    if (targets.length === 0) {
      const descriptor = await store.resolve(subject.repository, subject.tag);
      if (!descriptor) return [unchecked(`${tagRef} is not in ${store.name}`)];
      targets = [{ of: tagRef, digest: descriptor.digest, running: false }];
    }
    return await Promise.all(
      targets.map(async (t) => {
        const check = await checkImageSignature(store, trusted, {
          repository: subject.repository,
          digest: t.digest,
        });
        return {
          ...base,
          digest: t.digest,
          of: t.of,
          running: t.running,
          status: check.status,
          reason: check.reason,
        };
      }),
    );
  } catch (error) {
    const message = printable((error as Error).message, { max: 300 });
    return [{ ...unchecked(message), error: message }];
  }
}
