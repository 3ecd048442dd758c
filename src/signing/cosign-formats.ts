import { createHash } from 'node:crypto';
import { MEDIA_TYPES } from '../registry/store.ts';

/**
 * The shapes `cosign sign --key` and `cosign attest --key` write beside an image, so verifiers
 * that read only them (Kyverno's Cosign type, policy-controller with a key, Ratify) find a
 * release: the tag `sha256-<hex>.sig` holds one simple-signing layer per signature, the signature
 * itself in a layer annotation; the tag `sha256-<hex>.att` holds one DSSE envelope layer per
 * attestation, its predicate type in a layer annotation. Pure: bytes in, bytes out.
 */

export const SIMPLE_SIGNING_MEDIA_TYPE = 'application/vnd.dev.cosign.simplesigning.v1+json';
export const DSSE_ENVELOPE_MEDIA_TYPE = 'application/vnd.dsse.envelope.v1+json';
/** The layer annotation holding the base64 signature (empty on an attestation layer). */
export const COSIGN_SIGNATURE_ANNOTATION = 'dev.cosignproject.cosign/signature';
/** The layer annotation naming an attestation's predicate type (`cosign verify-attestation --type`). */
export const COSIGN_PREDICATE_ANNOTATION = 'predicateType';
export const COSIGN_SIGNATURE_TYPE = 'cosign container image signature';
/** cosign refuses a signature tag of more layers than this; so do we, before reading them. */
export const MAX_COSIGN_LAYERS = 1000;

export type CosignTagKind = 'sig' | 'att';

/** `sha256:<hex>` -> `sha256-<hex>.sig` (or `.att`): where cosign looks for an image's signatures. */
export function cosignTag(digest: string, kind: CosignTagKind): string {
  return `${digest.replace(':', '-')}.${kind}`;
}

/** What a simple-signing payload says. */
export interface SimpleSigningClaim {
  /** The image's name where it was signed (`host/ns/repo`, or the repository in a layout). */
  dockerReference: string;
  /** `sha256:<hex>`: the manifest the signature vouches for. */
  digest: string;
  /** cosign's optional annotations (`cosign sign -a`); null when there are none, as cosign writes. */
  optional: Record<string, string> | null;
}

/**
 * The payload exactly as cosign marshals it (sigstore's `payload.Cosign`): Go's field order,
 * no whitespace, `"optional":null` when there are no annotations.
 */
export function simpleSigningPayload(claim: SimpleSigningClaim): Buffer {
  return Buffer.from(
    JSON.stringify({
      critical: {
        identity: { 'docker-reference': claim.dockerReference },
        image: { 'docker-manifest-digest': claim.digest },
        type: COSIGN_SIGNATURE_TYPE,
      },
      optional: claim.optional,
    }),
  );
}

/** Read a payload back; a string says why it is not a cosign image signature. */
export function parseSimpleSigningPayload(bytes: Uint8Array): SimpleSigningClaim | string {
  let value: {
    critical?: {
      identity?: { 'docker-reference'?: unknown };
      image?: { 'docker-manifest-digest'?: unknown };
      type?: unknown;
    };
    optional?: unknown;
  };
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8')) as typeof value;
  } catch {
    return 'the payload is not JSON';
  }
  if (typeof value !== 'object' || value === null) return 'the payload is not a JSON object';
  const critical = value.critical;
  if (critical?.type !== COSIGN_SIGNATURE_TYPE) return `the payload's type is not "${COSIGN_SIGNATURE_TYPE}"`;
  const digest = critical.image?.['docker-manifest-digest'];
  if (typeof digest !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(digest))
    return 'the payload names no sha256 manifest digest';
  const reference = critical.identity?.['docker-reference'];
  if (typeof reference !== 'string') return 'the payload names no docker-reference';
  const optional = value.optional;
  if (
    optional !== null &&
    optional !== undefined &&
    (typeof optional !== 'object' || Array.isArray(optional))
  )
    return 'the payload\'s "optional" is not an object';
  return {
    dockerReference: reference,
    digest,
    optional: (optional ?? null) as Record<string, string> | null,
  };
}

/**
 * Whether a payload's docker-reference names this repository: cosign writes the full name where
 * the image was signed (`host:port/ns/repo`), which promotion and mirrors carry elsewhere, so the
 * repository's last path segments are what must match (cosign itself checks only the digest).
 */
export function referenceNamesRepository(dockerReference: string, repository: string): boolean {
  return dockerReference === repository || dockerReference.endsWith(`/${repository}`);
}

/** One layer of a cosign tag: its media type, bytes and the annotations on its descriptor. */
export interface CosignLayer {
  mediaType: string;
  bytes: Uint8Array;
  annotations: Record<string, string>;
}

/** A layer descriptor as read from a cosign tag's manifest. */
export interface CosignLayerDescriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations: Record<string, string>;
}

const digestOf = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/**
 * The manifest and config of a cosign tag holding `layers` (earlier ones first), as
 * go-containerregistry's `mutate.Append` over cosign's empty OCI image makes them: the config's
 * diff_ids are the layers' digests (they are not compressed), dates are Go's zero time, so the
 * same layers give the same bytes.
 */
export function cosignTagManifest(layers: readonly (CosignLayerDescriptor | CosignLayer)[]): {
  manifest: Buffer;
  config: Buffer;
  layers: CosignLayerDescriptor[];
} {
  const descriptors = layers.map((l) =>
    'bytes' in l
      ? {
          mediaType: l.mediaType,
          size: l.bytes.length,
          digest: digestOf(l.bytes),
          annotations: l.annotations,
        }
      : { mediaType: l.mediaType, size: l.size, digest: l.digest, annotations: l.annotations },
  );
  const zero = '0001-01-01T00:00:00Z';
  const config = Buffer.from(
    JSON.stringify({
      architecture: '',
      created: zero,
      history: descriptors.map(() => ({ created: zero })),
      os: '',
      rootfs: { type: 'layers', diff_ids: descriptors.map((d) => d.digest) },
      config: {},
    }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPES.ociManifest,
      config: { mediaType: MEDIA_TYPES.ociConfig, size: config.length, digest: digestOf(config) },
      layers: descriptors,
    }),
  );
  return { manifest, config, layers: descriptors };
}

/** The layers a cosign tag's manifest lists; a string says why it is not one. */
export function cosignLayersOf(manifest: Uint8Array): CosignLayerDescriptor[] | string {
  let value: { layers?: unknown };
  try {
    value = JSON.parse(Buffer.from(manifest).toString('utf8')) as typeof value;
  } catch {
    return 'not JSON';
  }
  if (!Array.isArray(value?.layers)) return 'not an image manifest (no layers)';
  if (value.layers.length > MAX_COSIGN_LAYERS)
    return `${value.layers.length} layers, over cosign's limit of ${MAX_COSIGN_LAYERS}`;
  const layers: CosignLayerDescriptor[] = [];
  for (const raw of value.layers as Record<string, unknown>[]) {
    const { mediaType, digest, size, annotations } = raw ?? {};
    if (typeof mediaType !== 'string' || typeof digest !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(digest))
      return 'a layer without a media type and sha256 digest';
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return 'a layer without a size';
    const notes: Record<string, string> = {};
    if (annotations && typeof annotations === 'object')
      for (const [k, v] of Object.entries(annotations)) if (typeof v === 'string') notes[k] = v;
    layers.push({ mediaType, digest, size, annotations: notes });
  }
  return layers;
}

/** DSSE's pre-authentication encoding: what an envelope's signature is over. */
export function pae(payloadType: string, payload: Uint8Array): Buffer {
  const type = Buffer.from(payloadType);
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `),
    type,
    Buffer.from(` ${payload.length} `),
    Buffer.from(payload),
  ]);
}

/** A DSSE envelope as cosign writes it in an `.att` layer. */
export interface DsseEnvelope {
  payloadType: string;
  /** base64 */
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

/**
 * The DSSE envelope inside a Sigstore bundle (the same signature, not a second one), in cosign's
 * field order: an attestation is signed once and published in both formats.
 */
export function envelopeOfBundle(bundle: Uint8Array): Buffer {
  const json = JSON.parse(Buffer.from(bundle).toString('utf8')) as {
    dsseEnvelope?: {
      payloadType?: string;
      payload?: string;
      signatures?: { keyid?: string; sig?: string }[];
    };
  };
  const envelope = json.dsseEnvelope;
  if (!envelope?.payloadType || !envelope.payload || !envelope.signatures?.length)
    throw new TypeError('the bundle holds no DSSE envelope');
  const out: DsseEnvelope = {
    payloadType: envelope.payloadType,
    payload: envelope.payload,
    signatures: envelope.signatures.map((s) => ({ keyid: s.keyid ?? '', sig: s.sig ?? '' })),
  };
  return Buffer.from(JSON.stringify(out));
}

/** Read an envelope back; a string says why it is not one. */
export function parseEnvelope(bytes: Uint8Array): DsseEnvelope | string {
  let value: Partial<DsseEnvelope>;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8')) as typeof value;
  } catch {
    return 'not JSON';
  }
  if (typeof value?.payloadType !== 'string' || typeof value.payload !== 'string')
    return 'not a DSSE envelope (no payload)';
  if (!Array.isArray(value.signatures) || value.signatures.length === 0)
    return 'a DSSE envelope with no signature';
  const signatures = value.signatures.filter(
    (s): s is { keyid: string; sig: string } => typeof s?.sig === 'string',
  );
  return {
    payloadType: value.payloadType,
    payload: value.payload,
    signatures: signatures.map((s) => ({ keyid: typeof s.keyid === 'string' ? s.keyid : '', sig: s.sig })),
  };
}
