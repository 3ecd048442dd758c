import { createHash, createPublicKey, verify } from 'node:crypto';

/**
 * A verifier that shares no code with the toolkit: it reads a registry over plain HTTP (the OCI
 * distribution API) and checks what cosign's formats define with node:crypto, and Sigstore bundles
 * with sigstore-js's public API. What it accepts, cosign, Kyverno and policy-controller accept.
 */

// biome-ignore lint/suspicious/noExplicitAny: JSON read from a registry, checked field by field as cosign does
export type Json = any;

const ACCEPT = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
].join(', ');

export interface PlainRegistry {
  /** A manifest's JSON and exact bytes, or undefined on 404. */
  manifest(repository: string, reference: string): Promise<{ json: Json; bytes: Buffer } | undefined>;
  blob(repository: string, digest: string): Promise<Buffer>;
}

/** The OCI distribution API of `host` (http, loopback), by plain fetch. */
export function plainRegistry(host: string): PlainRegistry {
  return {
    async manifest(repository, reference) {
      const response = await fetch(`http://${host}/v2/${repository}/manifests/${reference}`, {
        headers: { accept: ACCEPT },
      });
      if (response.status === 404) return undefined;
      if (!response.ok) throw new Error(`GET manifest ${repository}:${reference}: ${response.status}`);
      const bytes = Buffer.from(await response.arrayBuffer());
      return { json: JSON.parse(bytes.toString('utf8')), bytes };
    },
    async blob(repository, digest) {
      const response = await fetch(`http://${host}/v2/${repository}/blobs/${digest}`);
      if (!response.ok) throw new Error(`GET blob ${repository}@${digest}: ${response.status}`);
      const bytes = Buffer.from(await response.arrayBuffer());
      const actual = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
      if (actual !== digest) throw new Error(`blob ${digest} has digest ${actual}`);
      return bytes;
    },
  };
}

/**
 * Cosign's check of `sha256-<hex>.sig` with a public key (pkg/cosign/verify.go): some layer of
 * media type simple-signing whose base64 ECDSA signature (annotation
 * `dev.cosignproject.cosign/signature`) verifies over the payload's exact bytes, and whose payload
 * names the digest and the cosign signature type. Returns the payloads that verified.
 */
export async function cosignSignatures(
  registry: PlainRegistry,
  repository: string,
  digest: string,
  publicKeyPem: string,
): Promise<Json[]> {
  const tag = `${digest.replace(':', '-')}.sig`;
  const sig = await registry.manifest(repository, tag);
  if (!sig) return [];
  const key = createPublicKey(publicKeyPem);
  const valid: Json[] = [];
  for (const layer of sig.json.layers) {
    if (layer.mediaType !== 'application/vnd.dev.cosign.simplesigning.v1+json') continue;
    const payload = await registry.blob(repository, layer.digest);
    const signature = Buffer.from(layer.annotations?.['dev.cosignproject.cosign/signature'] ?? '', 'base64');
    if (!verify('sha256', payload, key, signature)) continue;
    const claim = JSON.parse(payload.toString('utf8'));
    if (claim.critical?.type !== 'cosign container image signature') continue;
    if (claim.critical?.image?.['docker-manifest-digest'] !== digest) continue;
    valid.push(claim);
  }
  return valid;
}

/**
 * Cosign's check of `sha256-<hex>.att` with a public key: DSSE envelope layers whose signature
 * verifies over the PAE of (payloadType, payload), the statement naming the digest. Returns the
 * predicate types of the statements that verified, each as its layer annotates it.
 */
export async function cosignAttestations(
  registry: PlainRegistry,
  repository: string,
  digest: string,
  publicKeyPem: string,
): Promise<string[]> {
  const att = await registry.manifest(repository, `${digest.replace(':', '-')}.att`);
  if (!att) return [];
  const key = createPublicKey(publicKeyPem);
  const types: string[] = [];
  for (const layer of att.json.layers) {
    if (layer.mediaType !== 'application/vnd.dsse.envelope.v1+json') continue;
    const envelope = JSON.parse((await registry.blob(repository, layer.digest)).toString('utf8'));
    const payload = Buffer.from(envelope.payload, 'base64');
    const type = Buffer.from(envelope.payloadType);
    const pae = Buffer.concat([
      Buffer.from(`DSSEv1 ${type.length} `),
      type,
      Buffer.from(` ${payload.length} `),
      payload,
    ]);
    if (
      !envelope.signatures.some((s: { sig: string }) =>
        verify('sha256', pae, key, Buffer.from(s.sig, 'base64')),
      )
    )
      continue;
    const statement = JSON.parse(payload.toString('utf8'));
    if (!statement.subject.some((s: Json) => `sha256:${s.digest?.sha256}` === digest)) continue;
    if (statement.predicateType !== layer.annotations?.predicateType) continue;
    types.push(statement.predicateType);
  }
  return types;
}

/** Every referrer of `digest` the OCI tag schema lists (`sha256-<hex>`), with its manifest. */
export async function referrersOf(
  registry: PlainRegistry,
  repository: string,
  digest: string,
): Promise<{ descriptor: Json; manifest: Json }[]> {
  const index = await registry.manifest(repository, digest.replace(':', '-'));
  if (!index) return [];
  return Promise.all(
    index.json.manifests.map(async (descriptor: Json) => ({
      descriptor,
      manifest: (await registry.manifest(repository, descriptor.digest))!.json,
    })),
  );
}

/**
 * A Sigstore bundle verified with sigstore-js's public API and the public key alone (no log, no
 * certificate): throws when it does not verify. Returns the DSSE payload (the in-toto statement).
 */
export async function verifyBundleWithSigstoreJs(bundleJson: unknown, publicKeyPem: string): Promise<Json> {
  const { bundleFromJSON } = await import('@sigstore/bundle');
  const { Verifier, toSignedEntity, toTrustMaterial } = await import('@sigstore/verify');
  const bundle = bundleFromJSON(bundleJson);
  const key = createPublicKey(publicKeyPem);
  const verifier = new Verifier(
    toTrustMaterial(
      { mediaType: '', certificateAuthorities: [], timestampAuthorities: [], tlogs: [], ctlogs: [] },
      () => ({ publicKey: key, validFor: () => true }),
    ),
    { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 },
  );
  verifier.verify(toSignedEntity(bundle));
  const envelope = (bundle.content as { dsseEnvelope: { payload: Buffer } }).dsseEnvelope;
  return JSON.parse(Buffer.from(envelope.payload).toString('utf8'));
}
