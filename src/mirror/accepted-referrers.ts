import { readEvidence } from '../evidence/attach-evidence.ts';
import { type EvidenceKind, FORMER_ARTIFACT_TYPE, PREDICATE } from '../evidence/statements.ts';
import { VSA_ARTIFACT_TYPE, VSA_PREDICATE } from '../evidence/vsa.ts';
import { BUNDLE_PREDICATE_ANNOTATION, listReferrers, withBundlePredicate } from '../registry/referrers.ts';
import type { Descriptor, ImageStore } from '../registry/store.ts';
import { checkImageSignature, SIGNATURE_ARTIFACT_TYPE } from '../signing/image-signature.ts';
import type { PublicSigningKey } from '../signing/keys.ts';
import { PREDICATE_TYPE as SIGNATURE_PREDICATE } from '../signing/statement.ts';

/**
 * A mirror carries only what it verified: the referrer kinds it accepts, each with how one
 * referrer of that kind is verified. Anything else attached to a release image (another artifact
 * type, a signature by another key, evidence about another image) is left behind with a notice,
 * or refuses the mirror with `--strict-referrers`. A new kind (a verification summary signed by a
 * verifier key, say) is one more entry here, with a key of its own in `TrustedKeys`.
 */

/** The keys a mirror checks referrers with (config `signing.publicKey`: the release key). */
export interface TrustedKeys {
  release: PublicSigningKey;
}

export interface ReferrerSubject {
  repository: string;
  digest: string;
}

export interface ReferrerKind {
  /** For notices: "signature", "SBOM"... */
  name: string;
  /**
   * Whether a listed referrer is of this kind: a Sigstore bundle with this kind's predicate type
   * annotated, or the artifact type releases made before listed it under.
   */
  matches(referrer: Descriptor): boolean;
  /** The referrers of this kind on `subject` that verify, by digest; the others with why not. */
  verify(store: ImageStore, keys: TrustedKeys, subject: ReferrerSubject): Promise<Verdicts>;
}

/** digest -> undefined when it verified, else the reason it did not. */
export type Verdicts = Map<string, string | undefined>;

/** A bundle of `predicateType`, or a referrer of the artifact type it was listed under before. */
const bundleOf =
  (predicateType: string, formerArtifactType?: string) =>
  (d: Descriptor): boolean =>
    (d.artifactType === SIGNATURE_ARTIFACT_TYPE &&
      d.annotations?.[BUNDLE_PREDICATE_ANNOTATION] === predicateType) ||
    (formerArtifactType !== undefined && d.artifactType === formerArtifactType);

const evidence = (name: string, kind: EvidenceKind): ReferrerKind => ({
  name,
  matches: bundleOf(PREDICATE[kind], FORMER_ARTIFACT_TYPE[kind]),
  async verify(store, keys, subject) {
    const entries = await readEvidence(store, keys.release, { ...subject, kind });
    return new Map(
      entries.map((e) => [e.referrer, e.status === 'valid' ? undefined : (e.reason ?? e.status)]),
    );
  },
});

export const ACCEPTED_REFERRERS: readonly ReferrerKind[] = [
  {
    name: 'signature',
    // A bundle naming no kind is checked as a signature too (as `checkImageSignature` reads them).
    matches: (d) =>
      bundleOf(SIGNATURE_PREDICATE)(d) ||
      (d.artifactType === SIGNATURE_ARTIFACT_TYPE &&
        d.annotations?.[BUNDLE_PREDICATE_ANNOTATION] === undefined),
    async verify(store, keys, subject) {
      const check = await checkImageSignature(store, keys.release, subject);
      return new Map(
        check.signatures.map((s) => [s.digest, s.valid ? undefined : (s.reason ?? 'not valid')]),
      );
    },
  },
  evidence('SBOM', 'sbom'), // CycloneDX statement signed by the release key, about this image
  evidence('provenance', 'provenance'), // SLSA v1 statement, the same way
  evidence('release set', 'releaseSet'), // the release-set statement naming this image
  // A verification summary is signed by the verifier, not the release key: collected here and
  // checked as a whole by the mirror's next step (`mirror-vsa-step.ts`) with `verifier.publicKey`
  // before anything is written. A bad one refuses the load; with no verifier key, all are left
  // behind with a warning. Either way none is carried unverified.
  {
    name: 'verification summary',
    matches: bundleOf(VSA_PREDICATE, VSA_ARTIFACT_TYPE),
    async verify(store, _keys, subject) {
      const listed = await Promise.all(
        (await listReferrers(store, subject.repository, subject.digest)).map((d) =>
          withBundlePredicate(store, subject.repository, d),
        ),
      );
      return new Map(
        listed.filter(bundleOf(VSA_PREDICATE, VSA_ARTIFACT_TYPE)).map((r) => [r.digest, undefined]),
      );
    },
  },
];

/** A referrer left behind, and why: for the notice and `--json`. */
export interface DroppedReferrer {
  repository: string;
  subject: string;
  digest: string;
  artifactType: string | undefined;
  reason: string;
}

/**
 * Split the referrers of `subject` into those a kind of `kinds` verifies and those it does not.
 * Each kind's verification reads only referrers of its own artifact type.
 */
export async function verifiedReferrers(
  store: ImageStore,
  keys: TrustedKeys,
  subject: ReferrerSubject,
  kinds: readonly ReferrerKind[] = ACCEPTED_REFERRERS,
): Promise<{ kept: Descriptor[]; dropped: DroppedReferrer[] }> {
  const listed = await Promise.all(
    (await listReferrers(store, subject.repository, subject.digest)).map((d) =>
      withBundlePredicate(store, subject.repository, d),
    ),
  );
  const kept: Descriptor[] = [];
  const dropped: DroppedReferrer[] = [];
  const verdicts = new Map<string, Verdicts>();
  for (const referrer of listed) {
    const kind = kinds.find((k) => k.matches(referrer));
    const drop = (reason: string) =>
      dropped.push({
        repository: subject.repository,
        subject: subject.digest,
        digest: referrer.digest,
        artifactType: referrer.artifactType,
        reason,
      });
    if (!kind) {
      drop(`artifact type ${referrer.artifactType ?? '(none)'} is not one a mirror carries`);
      continue;
    }
    if (!verdicts.has(kind.name)) verdicts.set(kind.name, await kind.verify(store, keys, subject));
    const verdict = verdicts.get(kind.name)!;
    if (!verdict.has(referrer.digest)) drop(`the ${kind.name} is not verified`);
    else if (verdict.get(referrer.digest) !== undefined)
      drop(`${kind.name}: ${verdict.get(referrer.digest)}`);
    else kept.push(referrer);
  }
  return { kept, dropped };
}
