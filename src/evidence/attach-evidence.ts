import { ExternalError } from '../errors.ts';
import { sha256Digest } from '../registry/digest.ts';
import { attachArtifact, listReferrers } from '../registry/referrers.ts';
import type { Descriptor, ImageStore } from '../registry/store.ts';
import { openBundle, signStatement } from '../signing/bundle.ts';
import { SIGNATURE_ARTIFACT_TYPE } from '../signing/image-signature.ts';
import type { PublicSigningKey, SigningKey } from '../signing/keys.ts';
import {
  ARTIFACT_TYPE,
  type EvidenceKind,
  type ParsedStatement,
  PREDICATE,
  parseStatement,
} from './statements.ts';

/** An evidence bundle carries its statement (an SBOM of a large image runs to megabytes): read at most this. */
const MAX_EVIDENCE_BYTES = 64 * 1024 * 1024;

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
 * Sign a statement and attach it to the image as a referrer of its kind's artifact type. When a
 * referrer of that kind already carries exactly this statement under this key, nothing is added:
 * signatures are not deterministic (ECDSA), so a re-run must not pile up equal statements.
 */
export async function attachEvidence(
  store: ImageStore,
  key: SigningKey,
  target: EvidenceTarget,
  statement: Uint8Array,
): Promise<{ status: 'attached' | 'already-attached'; referrer: string; bundle: Uint8Array }> {
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
  if (same) return { status: 'already-attached', referrer: same.referrer, bundle: same.bundle! };
  const bundle = await signStatement(key, statement);
  const descriptor = await attachArtifact(store, target.repository, subject, {
    artifactType: ARTIFACT_TYPE[target.kind],
    layer: { mediaType: SIGNATURE_ARTIFACT_TYPE, bytes: bundle },
    // No creation time: the clock would make the referrer differ on every run for nothing.
    annotations: {
      'dev.sigstore.bundle.content': 'dsse-envelope',
      'dev.sigstore.bundle.predicateType': PREDICATE[target.kind],
    },
  });
  return { status: 'attached', referrer: descriptor.digest, bundle };
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
    { label: target.kind, artifactType: ARTIFACT_TYPE[target.kind], predicateType: PREDICATE[target.kind] },
  );
}

/** A kind of signed statement attached as a referrer: how it is listed, what it must claim. */
export interface StatementKind {
  /** For messages: `sbom`, `verification summary`. */
  label: string;
  artifactType: string;
  predicateType: string;
}

/** Every referrer of `kind` on the image, each checked as `readEvidence` describes, under `trusted`. */
export async function readStatements(
  store: ImageStore,
  trusted: PublicSigningKey,
  image: { repository: string; digest: string },
  kind: StatementKind,
): Promise<EvidenceEntry[]> {
  const referrers = await listReferrers(store, image.repository, image.digest, kind.artifactType);
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
  const layer = parsed.layers?.find((l) => l.mediaType === SIGNATURE_ARTIFACT_TYPE);
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
