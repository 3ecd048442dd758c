import { readStatements } from '../evidence/attach-evidence.ts';
import { VSA_ARTIFACT_TYPE, VSA_PREDICATE, vsaClaim } from '../evidence/vsa.ts';
import { referencesOf } from '../registry/digest.ts';
import { BUNDLE_ARTIFACT_TYPE, BUNDLE_PREDICATE_ANNOTATION } from '../registry/referrers.ts';
import type { ImageStore } from '../registry/store.ts';
import type { PublicSigningKey } from '../signing/keys.ts';
import type { MirrorSet, SetManifest } from './mirror-set.ts';

/**
 * Verification summaries as a referrer kind of the mirror: the artifact type it is known by, and
 * its check. Signed by the verifier, not the release key, so they are checked with
 * `verifier.publicKey`; the far side of an air gap then checks one statement.
 */
export const VSA_REFERRER = { artifactType: VSA_ARTIFACT_TYPE, key: 'verifier.publicKey' } as const;

/** Whether a set manifest is a verification summary referrer. */
export function isVsaReferrer(manifest: SetManifest): boolean {
  if (manifest.role !== 'referrer') return false;
  try {
    const json = JSON.parse(Buffer.from(manifest.bytes).toString('utf8')) as {
      artifactType?: unknown;
      annotations?: Record<string, unknown>;
    };
    return (
      json.artifactType === VSA_ARTIFACT_TYPE ||
      (json.artifactType === BUNDLE_ARTIFACT_TYPE &&
        json.annotations?.[BUNDLE_PREDICATE_ANNOTATION] === VSA_PREDICATE)
    );
  } catch {
    return false;
  }
}

/**
 * Why the set's summaries must not be loaded: each must verify under the verifier's key and be a
 * VSA about the digest it is attached to (read through the same check `release verify --vsa`
 * uses). Empty: carry them.
 */
export async function checkVsaReferrers(
  store: ImageStore,
  verifier: PublicSigningKey,
  set: MirrorSet,
): Promise<string[]> {
  const problems: string[] = [];
  const vsas = set.manifests.filter(isVsaReferrer);
  const subjects = new Set(vsas.map((m) => `${m.repository}@${m.subject}`));
  for (const key of subjects) {
    const [repository, digest] = key.split('@') as [string, string];
    const entries = await readStatements(
      store,
      verifier,
      { repository, digest },
      { label: 'verification summary', formerArtifactType: VSA_ARTIFACT_TYPE, predicateType: VSA_PREDICATE },
    );
    for (const m of vsas.filter((v) => v.repository === repository && v.subject === digest)) {
      const entry = entries.find((e) => e.referrer === m.digest);
      const claim = entry?.status === 'valid' ? vsaClaim(entry.statement!) : undefined;
      const reason =
        entry?.status !== 'valid'
          ? (entry?.reason ?? "not listed among its subject's referrers")
          : typeof claim === 'string'
            ? claim
            : undefined;
      if (reason)
        problems.push(`verification summary ${m.digest.slice(0, 19)} on ${key.slice(0, 80)}: ${reason}`);
    }
  }
  return problems;
}

/**
 * The set without its verification summaries (and the blobs only they used): what is carried
 * when no verifier key is configured to check them. Pure.
 */
export function withoutVsas(set: MirrorSet): { set: MirrorSet; dropped: number } {
  const manifests = set.manifests.filter((m) => !isVsaReferrer(m));
  const dropped = set.manifests.length - manifests.length;
  if (dropped === 0) return { set, dropped };
  const used = new Set<string>();
  for (const m of manifests)
    for (const blob of referencesOf(m.bytes, m.mediaType).blobs) used.add(`${m.repository}@${blob.digest}`);
  const blobs = set.blobs.filter((b) => used.has(`${b.repository}@${b.digest}`));
  return { set: { ...set, manifests, blobs }, dropped };
}
