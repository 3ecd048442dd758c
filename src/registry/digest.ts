import { createHash } from 'node:crypto';
import { ExternalError, UsageError } from '../errors.ts';
import { MAX_MANIFEST_BYTES, parseJson, parseManifestBytes } from './oci-schema.ts';
import { type Descriptor, MEDIA_TYPES } from './store.ts';

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/**
 * The digest of manifest bytes about to be stored under `reference`. When the reference is itself
 * a digest the bytes must hash to it: storing other bytes under a digest would make the store lie
 * about content addressing, so it is refused before anything is written.
 */
export function manifestDigest(bytes: Uint8Array, reference: string): string {
  const digest = sha256Digest(bytes);
  if (isDigest(reference) && reference !== digest)
    throw new UsageError('DIGEST_MISMATCH', `manifest bytes do not match ${reference}`, {
      hint: 'store the exact bytes the digest was computed from',
    });
  return digest;
}

/** Whether a reference is a digest (`sha256:<64 hex>`) rather than a tag. */
export function isDigest(reference: string): boolean {
  return DIGEST.test(reference);
}

/** The media type a manifest declares about itself (OCI and Docker v2 both carry `mediaType`). */
export function declaredMediaType(bytes: Uint8Array): string | undefined {
  const parsed = bytes.length <= MAX_MANIFEST_BYTES ? parseJson(bytes) : undefined;
  const mediaType = (parsed as { mediaType?: unknown } | null | undefined)?.mediaType;
  return typeof mediaType === 'string' ? mediaType : undefined;
}

export function isIndex(mediaType: string): boolean {
  return mediaType === MEDIA_TYPES.ociIndex || mediaType === MEDIA_TYPES.dockerManifestList;
}

/**
 * What a manifest refers to: for an index, its child manifests; for an image manifest, its config
 * and layers (the blobs that must exist before the manifest may be stored). Stores check manifests
 * as they read them (`parseManifestBytes`); one that still fails here came from elsewhere.
 */
export function referencesOf(
  bytes: Uint8Array,
  mediaType: string,
): { manifests: Descriptor[]; blobs: Descriptor[] } {
  const parsed = parseManifestBytes(bytes, mediaType);
  if (parsed.kind === 'index') return { manifests: parsed.value.manifests, blobs: [] };
  if (parsed.kind === 'image') {
    const { config, layers = [] } = parsed.value;
    return { manifests: [], blobs: config ? [config, ...layers] : layers };
  }
  throw new ExternalError(
    'MANIFEST_UNREADABLE',
    `a manifest is not an OCI or Docker manifest (${parsed.reason})`,
    {
      hint: 'the image store holds something that is not an OCI or Docker manifest; rebuild and push the image',
    },
  );
}
