import { ExternalError } from '../errors.ts';
import { sha256Digest } from '../registry/digest.ts';
import { attachArtifact, BUNDLE_ARTIFACT_TYPE, listBundleReferrers } from '../registry/referrers.ts';
import type { Descriptor, ImageStore } from '../registry/store.ts';
import { checkBundle, type SignatureProblem, signClaim } from './bundle.ts';
import {
  type CosignSignatureCheck,
  checkCosignSignature,
  type SigningFormat,
  writeCosignSignature,
  writesCosignTags,
} from './cosign-tags.ts';
import type { PublicSigningKey, SigningKey } from './keys.ts';
import { PREDICATE_TYPE } from './statement.ts';

/** The artifact type (and layer media type) of a signature referrer: a Sigstore bundle v0.3. */
export const SIGNATURE_ARTIFACT_TYPE = BUNDLE_ARTIFACT_TYPE;
/** A signature's bundle is a few kilobytes; a store holding more there is not read whole. */
const MAX_BUNDLE_BYTES = 4 * 1024 * 1024;

/** One image in a store, by digest: what gets signed and checked. */
export interface SignedImageRef {
  repository: string;
  /** `sha256:<hex>`, resolved from the store; never a tag. */
  digest: string;
}

export interface SignatureCheck {
  /** valid: at least one signature from the trusted key vouches for this digest and repository. */
  status: 'valid' | 'missing' | 'invalid';
  /** One sentence: why it is valid, missing or invalid. */
  reason: string;
  keyId?: string;
  /** Each signature referrer found and what was wrong with it, if anything. */
  signatures: {
    digest: string;
    valid: boolean;
    /** A valid release signature: the rc digest it binds the release to. */
    madeFrom?: string;
    problem?: SignatureProblem | 'deleted' | 'detached';
    reason?: string;
  }[];
  /** The cosign `.sig` tag, when it was read: a bad one makes the whole check invalid. */
  cosign?: CosignSignatureCheck;
}

export interface SignOptions {
  /** `signing.formats`: the cosign `.sig` tag is written too unless `legacy` is left out. */
  formats?: readonly SigningFormat[];
}

export interface CheckOptions {
  /**
   * The cosign `.sig` tag: `check` (the default) refuses a tag that is there but does not verify;
   * `require` also refuses an image without one; `skip` does not read it.
   */
  cosign?: 'check' | 'require' | 'skip';
}

/**
 * Sign an image by its manifest digest and attach the bundle as an OCI referrer. Signing again an
 * image that already carries a valid signature from this key adds nothing (re-runs stay clean).
 */
export async function signImage(
  store: ImageStore,
  key: SigningKey,
  image: SignedImageRef & { madeFrom?: string },
  options: SignOptions = {},
): Promise<{ status: 'signed' | 'already-signed'; signature: string }> {
  const subject = await store.resolve(image.repository, image.digest);
  if (!subject) {
    throw new ExternalError(
      'IMAGE_MISSING',
      `${store.name} has no ${image.repository}@${image.digest} to sign`,
      {
        hint: 'push the image before signing it',
      },
    );
  }
  const existing = await checkImageSignature(store, key.publicKey, image, { cosign: 'skip' });
  const mine = existing.signatures.find((s) => s.valid && s.madeFrom === image.madeFrom);
  // The cosign tag after the bundle: a run stopped between them is completed by the next one.
  const cosign = writesCosignTags(options.formats)
    ? () => writeCosignSignature(store, key, image)
    : async () => ({ status: 'already-signed' as const });
  if (mine) {
    const legacy = await cosign();
    return { status: legacy.status === 'signed' ? 'signed' : 'already-signed', signature: mine.digest };
  }
  const bundle = await signClaim(key, image);
  const descriptor = await attachArtifact(store, image.repository, subject, {
    artifactType: SIGNATURE_ARTIFACT_TYPE,
    layer: { mediaType: SIGNATURE_ARTIFACT_TYPE, bytes: bundle },
    // Small (about 1.5 KiB): embedded, checking a signature costs two manifest reads and no blob read.
    embed: true,
    annotations: {
      'dev.sigstore.bundle.content': 'dsse-envelope',
      'dev.sigstore.bundle.predicateType': PREDICATE_TYPE,
      'org.opencontainers.image.created': new Date().toISOString(),
    },
  });
  await cosign();
  return { status: 'signed', signature: descriptor.digest };
}

/**
 * Whether the image at this digest carries a valid signature from the trusted key. Every
 * signature referrer is checked: its manifest must still exist and name this digest as subject,
 * its bundle must verify under the trusted key, and the signed claim must be this digest in this
 * repository. One valid signature is enough; otherwise the reasons say what was wrong.
 */
export async function checkImageSignature(
  store: ImageStore,
  trusted: PublicSigningKey,
  image: SignedImageRef,
  options: CheckOptions = {},
): Promise<SignatureCheck> {
  const bundles = await checkBundleSignatures(store, trusted, image);
  const mode = options.cosign ?? 'check';
  if (mode === 'skip' || bundles.status !== 'valid') return bundles;
  const cosign = await checkCosignSignature(store, trusted, image);
  if (cosign.status === 'valid')
    return { ...bundles, reason: `${bundles.reason}, and by its cosign signature`, cosign };
  if (cosign.status === 'missing' && mode === 'check') return { ...bundles, cosign };
  return { ...bundles, status: cosign.status, reason: cosign.reason, cosign };
}

async function checkBundleSignatures(
  store: ImageStore,
  trusted: PublicSigningKey,
  image: SignedImageRef,
): Promise<SignatureCheck> {
  const referrers = await listBundleReferrers(store, image.repository, image.digest, {
    predicateType: PREDICATE_TYPE,
    // A bundle saying nothing of its kind is checked as a signature: a forged one is then named.
    unannotated: true,
  });
  const signatures: SignatureCheck['signatures'] = [];
  for (const referrer of referrers)
    signatures.push({ digest: referrer.digest, ...(await checkReferrer(store, trusted, image, referrer)) });
  const valid = signatures.find((s) => s.valid);
  if (valid)
    return {
      status: 'valid',
      reason: `signed by key ${trusted.keyId.slice(0, 16)}`,
      keyId: trusted.keyId,
      signatures,
    };
  const present = signatures.filter((s) => s.problem !== 'deleted');
  if (present.length === 0) {
    const reason =
      signatures.length > 0
        ? `its signature was deleted (${signatures[0]!.digest.slice(0, 19)} is listed but no longer in the store)`
        : `no signature is attached to ${image.digest}`;
    return { status: 'missing', reason, signatures };
  }
  return { status: 'invalid', reason: present.map((s) => s.reason).join('; '), signatures };
}

async function checkReferrer(
  store: ImageStore,
  trusted: PublicSigningKey,
  image: SignedImageRef,
  referrer: Descriptor,
): Promise<Omit<SignatureCheck['signatures'][number], 'digest'>> {
  const manifest = await store.getManifest(image.repository, referrer.digest);
  if (!manifest)
    return { valid: false, problem: 'deleted', reason: `signature ${referrer.digest} was deleted` };
  let parsed: { subject?: Descriptor; layers?: (Descriptor & { data?: unknown })[] };
  try {
    parsed = JSON.parse(Buffer.from(manifest.bytes).toString('utf8')) as typeof parsed;
  } catch {
    return { valid: false, problem: 'unreadable', reason: `signature ${referrer.digest} is not a manifest` };
  }
  // A fallback index can be edited to list any manifest; only one whose subject is this image counts.
  if (parsed.subject?.digest !== image.digest) {
    return {
      valid: false,
      problem: 'detached',
      reason: `signature ${referrer.digest.slice(0, 19)} is attached to ${parsed.subject?.digest ?? 'nothing'}, not to ${image.digest}`,
    };
  }
  const layer = parsed.layers?.find((l) => l.mediaType === SIGNATURE_ARTIFACT_TYPE);
  if (!layer)
    return {
      valid: false,
      problem: 'unreadable',
      reason: `signature ${referrer.digest} has no Sigstore bundle layer`,
    };
  const bytes =
    typeof layer.data === 'string'
      ? Buffer.from(layer.data, 'base64')
      : await store.getBlob(image.repository, layer.digest, MAX_BUNDLE_BYTES);
  // Embedded or fetched, the bundle must be exactly the bytes the layer descriptor names.
  if (sha256Digest(bytes) !== layer.digest) {
    return {
      valid: false,
      problem: 'unreadable',
      reason: `the bundle of signature ${referrer.digest} does not match its digest`,
    };
  }
  const verdict = await checkBundle(bytes, trusted, image);
  if (!verdict.valid) return { valid: false, problem: verdict.problem, reason: verdict.reason };
  return { valid: true, ...(verdict.madeFrom ? { madeFrom: verdict.madeFrom } : {}) };
}

/**
 * Sign, then read the signature back through the same lookup `release verify` and the release
 * promotion use, so a store that accepted the push but cannot return it fails at signing time.
 * `label` names the artifact in the error.
 */
export async function signAndConfirm(
  store: ImageStore,
  key: SigningKey,
  image: SignedImageRef & { madeFrom?: string },
  label: string,
  options: SignOptions = {},
): Promise<{ status: 'signed' | 'already-signed'; signature: string }> {
  const outcome = await signImage(store, key, image, options);
  const check = await checkImageSignature(store, key.publicKey, image, {
    cosign: writesCosignTags(options.formats) ? 'require' : 'skip',
  });
  if (check.status !== 'valid') {
    throw new ExternalError(
      'SIGNATURE_NOT_READABLE',
      `${label}: the signature of ${image.repository}@${image.digest} was pushed but cannot be read back (${check.reason})`,
      {
        hint: `check that ${store.name} keeps manifests pushed by digest, the sha256-<hex> referrers tag and cosign's sha256-<hex>.sig tag`,
      },
    );
  }
  return outcome;
}
