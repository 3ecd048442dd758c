import { createPublicKey, verify } from 'node:crypto';
import type { ImageStore } from '../../src/registry/store.ts';

/**
 * What a customer does with the public key alone, no toolkit code: the DSSE signature of a
 * Sigstore bundle v0.3 checked with node:crypto over the pre-authentication encoding
 * (`DSSEv1 <len> <type> <len> <payload>`). Returns the payload when it verifies, else undefined.
 */
export function verifyDsse(bundleJson: Uint8Array | string, publicKeyPem: string): Buffer | undefined {
  const bundle = JSON.parse(Buffer.from(bundleJson).toString('utf8')) as {
    mediaType: string;
    dsseEnvelope: { payload: string; payloadType: string; signatures: { sig: string }[] };
  };
  if (bundle.mediaType !== 'application/vnd.dev.sigstore.bundle.v0.3+json') return undefined;
  const { payload, payloadType, signatures } = bundle.dsseEnvelope;
  const body = Buffer.from(payload, 'base64');
  const pae = Buffer.concat([
    Buffer.from(`DSSEv1 ${Buffer.byteLength(payloadType)} ${payloadType} ${body.length} `),
    body,
  ]);
  const key = createPublicKey(publicKeyPem);
  const ok = signatures.some((s) => verify('sha256', pae, key, Buffer.from(s.sig, 'base64')));
  return ok ? body : undefined;
}

/**
 * The referrers of `digest` through the tag schema (`sha256-<hex>`), read with plain store calls;
 * with `predicateType`, only the Sigstore bundles of that kind (artifact type
 * `application/vnd.dev.sigstore.bundle.v0.3+json`, the kind in `dev.sigstore.bundle.predicateType`).
 */
export async function referrersOf(
  store: ImageStore,
  repository: string,
  digest: string,
  predicateType?: string,
): Promise<{ digest: string; artifactType?: string; annotations?: Record<string, string> }[]> {
  const index = await store.getManifest(repository, digest.replace(':', '-'));
  if (!index) return [];
  const manifests = (
    JSON.parse(Buffer.from(index.bytes).toString('utf8')) as {
      manifests: { digest: string; artifactType?: string; annotations?: Record<string, string> }[];
    }
  ).manifests;
  return manifests.filter(
    (m) =>
      !predicateType ||
      (m.artifactType === 'application/vnd.dev.sigstore.bundle.v0.3+json' &&
        m.annotations?.['dev.sigstore.bundle.predicateType'] === predicateType),
  );
}

/** The Sigstore bundle a referrer manifest carries (its one layer's blob). */
export async function bundleOf(store: ImageStore, repository: string, referrer: string): Promise<Uint8Array> {
  const manifest = await store.getManifest(repository, referrer);
  const layer = (
    JSON.parse(Buffer.from(manifest!.bytes).toString('utf8')) as { layers: { digest: string }[] }
  ).layers[0]!;
  return store.getBlob(repository, layer.digest);
}
