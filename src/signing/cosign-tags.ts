import { sign, verify } from 'node:crypto';
import { sha256Digest } from '../registry/digest.ts';
import { type ImageStore, MEDIA_TYPES } from '../registry/store.ts';
import {
  COSIGN_PREDICATE_ANNOTATION,
  COSIGN_SIGNATURE_ANNOTATION,
  type CosignLayer,
  type CosignLayerDescriptor,
  cosignLayersOf,
  cosignTag,
  cosignTagManifest,
  DSSE_ENVELOPE_MEDIA_TYPE,
  envelopeOfBundle,
  pae,
  parseEnvelope,
  parseSimpleSigningPayload,
  referenceNamesRepository,
  SIMPLE_SIGNING_MEDIA_TYPE,
  simpleSigningPayload,
} from './cosign-formats.ts';
import { type PublicSigningKey, type SigningKey, shortKeyId } from './keys.ts';

/**
 * The cosign tags of an image in a store: written when we sign or attest (beside the Sigstore
 * bundle referrers, which stay what this toolkit itself reads first), and checked by verify.
 * Each write puts its blobs first and the tag last, so a reader sees the old tag or the new one,
 * never a tag naming a missing blob.
 */

/** The signature formats a release is written in (`signing.formats`). */
export type SigningFormat = 'bundle' | 'legacy';
export const DEFAULT_SIGNING_FORMATS: readonly SigningFormat[] = ['bundle', 'legacy'];

/** Whether the cosign `.sig`/`.att` tags are written: on unless the config leaves `legacy` out. */
export function writesCosignTags(formats: readonly SigningFormat[] | undefined): boolean {
  return (formats ?? DEFAULT_SIGNING_FORMATS).includes('legacy');
}

/** A simple-signing payload is a few hundred bytes. */
const MAX_SIGNATURE_LAYER_BYTES = 64 * 1024;
/** An attestation layer carries its statement (an SBOM runs to megabytes), as evidence bundles do. */
const MAX_ATTESTATION_LAYER_BYTES = 64 * 1024 * 1024;

export interface CosignImage {
  repository: string;
  /** `sha256:<hex>` */
  digest: string;
}

export interface CosignSignatureCheck {
  /** valid: one layer of the `.sig` tag verifies under the key and names this digest. */
  status: 'valid' | 'missing' | 'invalid';
  reason: string;
  /** The tag read: `sha256-<hex>.sig`. */
  tag: string;
}

/**
 * Sign the image as `cosign sign --key` does and add the signature to its `.sig` tag. Signing
 * again an image whose tag already holds a valid signature of this key adds nothing.
 */
export async function writeCosignSignature(
  store: ImageStore,
  key: SigningKey,
  image: CosignImage & { madeFrom?: string },
): Promise<{ status: 'signed' | 'already-signed'; tag: string }> {
  const tag = cosignTag(image.digest, 'sig');
  const existing = await readLayers(store, image.repository, tag);
  for (const layer of existing) {
    if (layer.mediaType !== SIMPLE_SIGNING_MEDIA_TYPE) continue;
    if ((await checkSignatureLayer(store, key.publicKey, image, layer)) === undefined)
      return { status: 'already-signed', tag };
  }
  const payload = simpleSigningPayload({
    dockerReference: store.pullPrefix ? `${store.pullPrefix}/${image.repository}` : image.repository,
    digest: image.digest,
    // What `cosign sign -a` would add: the rc a re-stamped release was made from, for a policy to match.
    optional: image.madeFrom ? { 'dev.service-release/made-from': image.madeFrom } : null,
  });
  const signature = sign('sha256', payload, key.privateKey).toString('base64');
  await appendLayer(store, image.repository, tag, existing, {
    mediaType: SIMPLE_SIGNING_MEDIA_TYPE,
    bytes: payload,
    annotations: { [COSIGN_SIGNATURE_ANNOTATION]: signature },
  });
  return { status: 'signed', tag };
}

/**
 * Whether the image's `.sig` tag holds a signature of the trusted key for this digest, as cosign
 * checks it: the ECDSA signature over the payload's exact bytes, then the payload's digest (and
 * here also that its docker-reference names this repository). One valid layer is enough, as for
 * cosign; with `every`, each layer must be (a mirror carries the tag only then).
 */
export async function checkCosignSignature(
  store: ImageStore,
  trusted: PublicSigningKey,
  image: CosignImage,
  layersValid: 'any' | 'every' = 'any',
): Promise<CosignSignatureCheck> {
  const tag = cosignTag(image.digest, 'sig');
  let layers: CosignLayerDescriptor[];
  try {
    const manifest = await store.getManifest(image.repository, tag);
    if (!manifest) return { status: 'missing', reason: `no cosign signature (${tag}) is in the store`, tag };
    const parsed = cosignLayersOf(manifest.bytes);
    if (typeof parsed === 'string')
      return { status: 'invalid', reason: `${tag} is unreadable: ${parsed}`, tag };
    layers = parsed;
  } catch (error) {
    return { status: 'invalid', reason: `${tag} is unreadable: ${(error as Error).message}`, tag };
  }
  const problems: string[] = [];
  let valid = 0;
  for (const layer of layers) {
    if (layer.mediaType !== SIMPLE_SIGNING_MEDIA_TYPE) {
      problems.push(`layer ${layer.digest.slice(0, 19)} is ${layer.mediaType}, not a simple-signing payload`);
      continue;
    }
    const problem = await checkSignatureLayer(store, trusted, image, layer);
    if (problem === undefined) valid++;
    else problems.push(problem);
  }
  if (valid > 0 && (layersValid === 'any' || problems.length === 0))
    return { status: 'valid', reason: `cosign signature ${tag} by key ${shortKeyId(trusted.keyId)}`, tag };
  if (valid === 0 && problems.length === 0)
    return { status: 'invalid', reason: `${tag} holds no simple-signing layer`, tag };
  return { status: 'invalid', reason: `cosign signature ${tag}: ${problems.join('; ')}`, tag };
}

/** undefined when the layer is a valid signature of `image` under `trusted`; else why not. */
async function checkSignatureLayer(
  store: ImageStore,
  trusted: PublicSigningKey,
  image: CosignImage,
  layer: CosignLayerDescriptor,
): Promise<string | undefined> {
  const signature = layer.annotations[COSIGN_SIGNATURE_ANNOTATION];
  if (!signature) return `layer ${layer.digest.slice(0, 19)} carries no signature annotation`;
  if (layer.size > MAX_SIGNATURE_LAYER_BYTES)
    return `layer ${layer.digest.slice(0, 19)} is ${layer.size} bytes, not a signature payload`;
  let payload: Uint8Array;
  try {
    payload = await store.getBlob(image.repository, layer.digest, MAX_SIGNATURE_LAYER_BYTES);
  } catch (error) {
    return `the payload ${layer.digest.slice(0, 19)} cannot be read (${(error as Error).message})`;
  }
  if (sha256Digest(payload) !== layer.digest)
    return `the payload ${layer.digest.slice(0, 19)} does not match its digest`;
  if (!verifies(trusted, payload, signature))
    return `the signature does not match its payload under the configured key ${shortKeyId(trusted.keyId)} (the payload or the signature was modified, or another key signed it)`;
  const claim = parseSimpleSigningPayload(payload);
  if (typeof claim === 'string') return claim;
  if (claim.digest !== image.digest)
    return `the signature is for ${claim.digest}, not this image's ${image.digest}`;
  if (!referenceNamesRepository(claim.dockerReference, image.repository))
    return `the signature is for ${claim.dockerReference}, not repository ${image.repository}`;
  return undefined;
}

/**
 * Add an attestation to the image's `.att` tag: the DSSE envelope of the Sigstore bundle already
 * signed (the same signature, published a second way), with its predicate type annotated as
 * `cosign attest` does. An envelope of the same statement already there adds nothing.
 */
export async function writeCosignAttestation(
  store: ImageStore,
  image: CosignImage,
  bundle: Uint8Array,
  predicateType: string,
): Promise<{ status: 'attached' | 'already-attached'; tag: string }> {
  const tag = cosignTag(image.digest, 'att');
  const envelope = envelopeOfBundle(bundle);
  const payload = (parseEnvelope(envelope) as { payload: string }).payload;
  const existing = await readLayers(store, image.repository, tag);
  const digest = sha256Digest(envelope);
  for (const layer of existing) {
    if (layer.digest === digest) return { status: 'already-attached', tag };
    if (layer.annotations[COSIGN_PREDICATE_ANNOTATION] !== predicateType) continue;
    if (layer.size > MAX_ATTESTATION_LAYER_BYTES) continue;
    // ECDSA signs differently each time: the same statement signed again is the same attestation.
    const bytes = await store
      .getBlob(image.repository, layer.digest, MAX_ATTESTATION_LAYER_BYTES)
      .catch(() => undefined);
    const other = bytes && sha256Digest(bytes) === layer.digest ? parseEnvelope(bytes) : undefined;
    if (other && typeof other !== 'string' && other.payload === payload)
      return { status: 'already-attached', tag };
  }
  await appendLayer(store, image.repository, tag, existing, {
    mediaType: DSSE_ENVELOPE_MEDIA_TYPE,
    bytes: envelope,
    annotations: { [COSIGN_SIGNATURE_ANNOTATION]: '', [COSIGN_PREDICATE_ANNOTATION]: predicateType },
  });
  return { status: 'attached', tag };
}

export interface CosignAttestation {
  layer: string;
  predicateType: string;
  status: 'valid' | 'invalid';
  reason?: string;
  /** The in-toto statement's bytes, once the envelope verified. */
  payload?: Buffer;
}

/**
 * Every attestation layer of the image's `.att` tag, each checked as `cosign verify-attestation
 * --key` does: a signature over the envelope's PAE verifies under the key, and the statement names
 * this digest among its subjects with the predicate type its layer is annotated with.
 * `present` is false when the image has no `.att` tag.
 */
export async function readCosignAttestations(
  store: ImageStore,
  trusted: PublicSigningKey,
  image: CosignImage,
): Promise<{ present: boolean; tag: string; attestations: CosignAttestation[]; unreadable?: string }> {
  const tag = cosignTag(image.digest, 'att');
  const manifest = await store.getManifest(image.repository, tag);
  if (!manifest) return { present: false, tag, attestations: [] };
  const layers = cosignLayersOf(manifest.bytes);
  if (typeof layers === 'string') return { present: true, tag, attestations: [], unreadable: layers };
  const attestations: CosignAttestation[] = [];
  for (const layer of layers) {
    if (layer.mediaType !== DSSE_ENVELOPE_MEDIA_TYPE) continue;
    const predicateType = layer.annotations[COSIGN_PREDICATE_ANNOTATION] ?? '';
    const invalid = (reason: string): CosignAttestation => ({
      layer: layer.digest,
      predicateType,
      status: 'invalid',
      reason,
    });
    if (layer.size > MAX_ATTESTATION_LAYER_BYTES) {
      attestations.push(
        invalid(`layer ${layer.digest.slice(0, 19)} is over ${MAX_ATTESTATION_LAYER_BYTES} bytes`),
      );
      continue;
    }
    const bytes = await store
      .getBlob(image.repository, layer.digest, MAX_ATTESTATION_LAYER_BYTES)
      .catch(() => undefined);
    if (!bytes || sha256Digest(bytes) !== layer.digest) {
      attestations.push(
        invalid(`the envelope ${layer.digest.slice(0, 19)} is missing or does not match its digest`),
      );
      continue;
    }
    const envelope = parseEnvelope(bytes);
    if (typeof envelope === 'string') {
      attestations.push(invalid(envelope));
      continue;
    }
    const payload = Buffer.from(envelope.payload, 'base64');
    const signed = pae(envelope.payloadType, payload);
    if (!envelope.signatures.some((s) => verifies(trusted, signed, s.sig))) {
      attestations.push(
        invalid(
          `the envelope's signature does not verify under the configured key ${shortKeyId(trusted.keyId)}`,
        ),
      );
      continue;
    }
    let statement: { predicateType?: unknown; subject?: { digest?: { sha256?: unknown } }[] };
    try {
      statement = JSON.parse(payload.toString('utf8')) as typeof statement;
    } catch {
      attestations.push(invalid('the statement is not JSON'));
      continue;
    }
    if (statement.predicateType !== predicateType) {
      attestations.push(
        invalid(`the statement's predicate type is not the annotated ${predicateType || '(none)'}`),
      );
      continue;
    }
    const hex = image.digest.slice('sha256:'.length);
    if (!Array.isArray(statement.subject) || !statement.subject.some((s) => s?.digest?.sha256 === hex)) {
      attestations.push(invalid(`the statement is not about ${image.digest}`));
      continue;
    }
    attestations.push({ layer: layer.digest, predicateType, status: 'valid', payload });
  }
  return { present: true, tag, attestations };
}

function verifies(trusted: PublicSigningKey, data: Uint8Array, base64Signature: string): boolean {
  try {
    return verify('sha256', data, trusted.key, Buffer.from(base64Signature, 'base64'));
  } catch {
    return false;
  }
}

/** The layers the tag lists now ([] when there is none, or it is not a cosign manifest). */
async function readLayers(
  store: ImageStore,
  repository: string,
  tag: string,
): Promise<CosignLayerDescriptor[]> {
  const manifest = await store.getManifest(repository, tag);
  if (!manifest) return [];
  const layers = cosignLayersOf(manifest.bytes);
  // Something else sits under cosign's tag: replaced, as `cosign sign` would (it reads it as empty).
  return typeof layers === 'string' ? [] : layers;
}

/** The layer's blob, the new config, then the tag: the tag is the one write readers see. */
async function appendLayer(
  store: ImageStore,
  repository: string,
  tag: string,
  existing: CosignLayerDescriptor[],
  layer: CosignLayer,
): Promise<void> {
  const { manifest, config } = cosignTagManifest([...existing, layer]);
  const layerDigest = sha256Digest(layer.bytes);
  if (!(await store.hasBlob(repository, layerDigest)))
    await store.putBlob(repository, layerDigest, layer.bytes);
  const configDigest = sha256Digest(config);
  if (!(await store.hasBlob(repository, configDigest))) await store.putBlob(repository, configDigest, config);
  await store.putManifest(repository, tag, manifest, MEDIA_TYPES.ociManifest);
}
