import { ExternalError } from '../errors.ts';
import { sha256Digest } from '../registry/digest.ts';
import {
  attachArtifact,
  BUNDLE_ARTIFACT_TYPE,
  BUNDLE_PREDICATE_ANNOTATION,
  listBundleReferrers,
  listReferrers,
} from '../registry/referrers.ts';
import type { Descriptor, ImageStore } from '../registry/store.ts';
import { openBundle, signStatement } from '../signing/bundle.ts';
import { type SigningFormat, writeCosignAttestation, writesCosignTags } from '../signing/cosign-tags.ts';
import type { PublicSigningKey, SigningKey } from '../signing/keys.ts';
import {
  type EvidenceKind,
  FORMER_ARTIFACT_TYPE,
  type ParsedStatement,
  PREDICATE,
  parseStatement,
} from './statements.ts';

/** An evidence bundle carries its statement (an SBOM of a large image runs to megabytes): read at most this. */
const MAX_EVIDENCE_BYTES = 64 * 1024 * 1024;
/** Kyverno's SigstoreBundle verifier refuses a bundle above this, and a digest with more referrers. */
export const VERIFIER_MAX_BUNDLE_BYTES = 10 * 1024 * 1024;
export const VERIFIER_MAX_REFERRERS = 50;

export interface EvidenceTarget {
  repository: string;
  digest: string;
  kind: EvidenceKind;
}

/** One evidence referrer of an image, as read back and checked against the trusted key. */
export interface EvidenceEntry {
  referrer: string;
  status: 'valid' | 'invalid' | 'deleted';
  reason?: string;
  /** The statement, once its signature verified. */
  statement?: ParsedStatement;
  /** Its exact payload bytes (a re-run compares them to what it would sign). */
  payload?: Buffer;
  /** The Sigstore bundle as stored. */
  bundle?: Uint8Array;
}

/**
 * Sign a statement and attach it to the image as a Sigstore-bundle referrer annotated with its
 * kind's predicate type, and (unless `formats` leaves `legacy` out) as a layer of cosign's `.att`
 * tag. When a referrer of that kind already carries exactly this statement under this key, no
 * bundle is added: signatures are not deterministic (ECDSA), so a re-run must not pile up equal
 * statements. `warnings` says what a policy engine's limits would refuse (a bundle over 10 MB,
 * a digest with more than 50 referrers).
 */
export async function attachEvidence(
  store: ImageStore,
  key: SigningKey,
  target: EvidenceTarget,
  statement: Uint8Array,
  options: { formats?: readonly SigningFormat[] } = {},
): Promise<{
  status: 'attached' | 'already-attached';
  referrer: string;
  bundle: Uint8Array;
  warnings: string[];
}> {
  const subject = await store.resolve(target.repository, target.digest);
  if (!subject) {
    throw new ExternalError(
      'EVIDENCE_IMAGE_MISSING',
      `${store.name} has no ${target.repository}@${target.digest} to attach its ${target.kind} to`,
      { hint: 'push the image first' },
    );
  }
  const existing = await readEvidence(store, key.publicKey, target);
  const same = existing.find((e) => e.status === 'valid' && e.payload?.equals(Buffer.from(statement)));
  const cosign = async (bundle: Uint8Array) => {
    if (writesCosignTags(options.formats))
      await writeCosignAttestation(store, target, bundle, PREDICATE[target.kind]);
  };
  if (same) {
    // A release written before cosign's tags were: its `.att` is completed from the same bundle.
    await cosign(same.bundle!);
    return { status: 'already-attached', referrer: same.referrer, bundle: same.bundle!, warnings: [] };
  }
  const bundle = await signStatement(key, statement);
  const descriptor = await attachArtifact(store, target.repository, subject, {
    artifactType: BUNDLE_ARTIFACT_TYPE,
    layer: { mediaType: BUNDLE_ARTIFACT_TYPE, bytes: bundle },
    // No creation time: the clock would make the referrer differ on every run for nothing.
    annotations: {
      'dev.sigstore.bundle.content': 'dsse-envelope',
      [BUNDLE_PREDICATE_ANNOTATION]: PREDICATE[target.kind],
    },
  });
  await cosign(bundle);
  return {
    status: 'attached',
    referrer: descriptor.digest,
    bundle,
    warnings: await verifierLimits(store, target, bundle.length),
  };
}

/**
 * What Kyverno's SigstoreBundle verifier would refuse about this image's evidence: a bundle over
 * 10 MB (an SBOM of a very large image), more than 50 referrers on one digest.
 */
export async function verifierLimits(
  store: ImageStore,
  target: { repository: string; digest: string; kind?: EvidenceKind },
  bundleBytes: number,
): Promise<string[]> {
  const warnings: string[] = [];
  const name = `${target.repository}@${target.digest.slice(0, 19)}`;
  if (bundleBytes > VERIFIER_MAX_BUNDLE_BYTES)
    warnings.push(
      `the ${target.kind ?? 'evidence'} bundle of ${name} is ${(bundleBytes / 1024 / 1024).toFixed(1)} MB: Kyverno's SigstoreBundle verifier refuses bundles over 10 MB (cosign's .att tag still carries it)`,
    );
  const count = (await listReferrers(store, target.repository, target.digest)).length;
  if (count > VERIFIER_MAX_REFERRERS)
    warnings.push(
      `${name} has ${count} referrers: Kyverno's SigstoreBundle verifier refuses a digest with more than ${VERIFIER_MAX_REFERRERS}`,
    );
  return warnings;
}

/**
 * Every referrer of this kind attached to the image, each checked: the manifest still there and
 * naming this image as subject, the bundle verifying under the trusted key, the statement of the
 * right predicate type and naming this image among its subjects.
 */
export async function readEvidence(
  store: ImageStore,
  trusted: PublicSigningKey,
  target: EvidenceTarget,
): Promise<EvidenceEntry[]> {
  return readStatements(
    store,
    trusted,
    { repository: target.repository, digest: target.digest },
    {
      label: target.kind,
      predicateType: PREDICATE[target.kind],
      formerArtifactType: FORMER_ARTIFACT_TYPE[target.kind],
    },
  );
}

/** A kind of signed statement attached as a referrer: how it is listed, what it must claim. */
export interface StatementKind {
  /** For messages: `sbom`, `verification summary`. */
  label: string;
  predicateType: string;
  /** The artifact type releases made before listed it under (still read). */
  formerArtifactType?: string;
}

/** Every referrer of `kind` on the image, each checked as `readEvidence` describes, under `trusted`. */
export async function readStatements(
  store: ImageStore,
  trusted: PublicSigningKey,
  image: { repository: string; digest: string },
  kind: StatementKind,
): Promise<EvidenceEntry[]> {
  const referrers = await listBundleReferrers(store, image.repository, image.digest, kind);
  const entries: EvidenceEntry[] = [];
  for (const referrer of referrers) entries.push(await checkOne(store, trusted, image, kind, referrer));
  return entries;
}

async function checkOne(
  store: ImageStore,
  trusted: PublicSigningKey,
  target: { repository: string; digest: string },
  kind: StatementKind,
  referrer: Descriptor,
): Promise<EvidenceEntry> {
  const id = referrer.digest;
  const label = kind.label;
  const invalid = (reason: string): EvidenceEntry => ({ referrer: id, status: 'invalid', reason });
  const manifest = await store.getManifest(target.repository, id);
  if (!manifest)
    return { referrer: id, status: 'deleted', reason: `${label} ${id.slice(0, 19)} was deleted` };
  let parsed: { subject?: Descriptor; layers?: Descriptor[] };
  try {
    parsed = JSON.parse(Buffer.from(manifest.bytes).toString('utf8')) as typeof parsed;
  } catch {
    return invalid(`${label} ${id.slice(0, 19)} is not a manifest`);
  }
  if (parsed.subject?.digest !== target.digest)
    return invalid(`${label} ${id.slice(0, 19)} is attached to ${parsed.subject?.digest ?? 'nothing'}`);
  const layer = parsed.layers?.find((l) => l.mediaType === BUNDLE_ARTIFACT_TYPE);
  if (!layer) return invalid(`${label} ${id.slice(0, 19)} has no Sigstore bundle`);
  let bundle: Uint8Array;
  try {
    bundle = await store.getBlob(target.repository, layer.digest, MAX_EVIDENCE_BYTES);
  } catch {
    return {
      referrer: id,
      status: 'deleted',
      reason: `the bundle of ${label} ${id.slice(0, 19)} was deleted`,
    };
  }
  if (sha256Digest(bundle) !== layer.digest)
    return invalid(`the bundle of ${id.slice(0, 19)} does not match its digest`);
  const opened = await openBundle(bundle, trusted);
  if (!opened.valid) return invalid(opened.reason);
  const statement = parseStatement(opened.payload);
  if (typeof statement === 'string') return invalid(statement);
  if (statement.predicateType !== kind.predicateType)
    return invalid(`predicate type is ${statement.predicateType}, not ${kind.predicateType}`);
  const hex = target.digest.slice('sha256:'.length);
  if (!statement.subject.some((s) => s.name === target.repository && s.digest['sha256'] === hex))
    return invalid(`the statement is not about ${target.repository}@${target.digest}`);
  return { referrer: id, status: 'valid', statement, payload: opened.payload, bundle };
}
