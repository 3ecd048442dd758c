import type { ImageStore } from '../../registry/store.ts';
import type { PublicSigningKey } from '../../signing/keys.ts';
import { printable } from '../../text/printable.ts';
import type { EvidenceReading, EvidenceStatus } from '../types.ts';

/** One image of the deployment: the digests found for it (running, else the tag's). */
export interface EvidenceSubject {
  artifact: string;
  repository: string;
  tag: string;
  running: { source: string; digest: string | undefined }[];
}

/**
 * Read the SBOM, provenance and release set attached to each digest of one image, each checked
 * against the configured key. The evidence code (and Sigstore) is loaded only here. Never
 * throws: a store that cannot be read gives `unchecked` readings with the error.
 */
export async function probeEvidence(
  store: ImageStore,
  trusted: PublicSigningKey,
  subject: EvidenceSubject,
): Promise<EvidenceReading[]> {
  const tagRef = `${subject.repository}:${subject.tag}`;
  const unchecked = (reason: string): EvidenceReading => ({
    artifact: subject.artifact,
    repository: subject.repository,
    digest: undefined,
    of: tagRef,
    sbom: { status: 'unchecked', reason },
    provenance: { status: 'unchecked', reason },
  });
  try {
    const [{ readEvidence }, { releaseSetClaim }] = await Promise.all([
      import('../../evidence/attach-evidence.ts'),
      import('../../evidence/release-set.ts'),
    ]);
    let targets = subject.running
      .filter((r): r is { source: string; digest: string } => r.digest !== undefined)
      .map((r) => ({ of: r.source, digest: r.digest }));
    if (targets.length === 0) {
      const descriptor = await store.resolve(subject.repository, subject.tag);
      if (!descriptor) return [unchecked(`${tagRef} is not in ${store.name}`)];
      targets = [{ of: tagRef, digest: descriptor.digest }];
    }
    return await Promise.all(
      targets.map(async (t): Promise<EvidenceReading> => {
        const image = { repository: subject.repository, digest: t.digest };
        const [sbom, provenance, sets] = await Promise.all(
          (['sbom', 'provenance', 'releaseSet'] as const).map((kind) =>
            readEvidence(store, trusted, { ...image, kind }),
          ),
        );
        const set = sets!
          .filter((e) => e.status === 'valid')
          .map((e) => ({ claim: releaseSetClaim(e.statement!.predicate), predicate: e.statement!.predicate }))
          .find((s) => typeof s.claim !== 'string' && s.claim.version === subject.tag);
        const claim = set && typeof set.claim !== 'string' ? set.claim : undefined;
        return {
          artifact: subject.artifact,
          ...image,
          of: t.of,
          sbom: statusOf(sbom!, 'SBOM'),
          provenance: statusOf(provenance!, 'provenance'),
          ...(claim
            ? {
                releaseSet: {
                  version: claim.version,
                  artifacts: claim.artifacts,
                  hasArchive: Boolean(set!.predicate['cliArchive']),
                },
              }
            : {}),
        };
      }),
    );
  } catch (error) {
    const message = printable((error as Error).message, { max: 300 });
    return [{ ...unchecked(message), error: message }];
  }
}

function statusOf(entries: { status: string; reason?: string }[], what: string): EvidenceStatus {
  if (entries.some((e) => e.status === 'valid')) return { status: 'valid', reason: `signed ${what}` };
  const present = entries.filter((e) => e.status === 'invalid');
  if (present.length > 0) return { status: 'invalid', reason: present.map((e) => e.reason).join('; ') };
  const deleted = entries.find((e) => e.status === 'deleted');
  return {
    status: 'missing',
    reason: deleted ? `its ${what} was removed (${deleted.reason})` : `no ${what} is attached`,
  };
}
