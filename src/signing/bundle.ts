import { sign } from 'node:crypto';
import type { Bundle } from '@sigstore/bundle';
import type { Signer } from '@sigstore/sign';
import { type PublicSigningKey, type SigningKey, shortKeyId } from './keys.ts';
import { claimOf, type ImageClaim, PAYLOAD_TYPE, statementFor } from './statement.ts';

/** Why a signature does not vouch for an image, in words a release engineer can act on. */
export type SignatureProblem = 'unreadable' | 'other-key' | 'bad-signature' | 'other-image';

export type SignatureVerdict =
  | { valid: true; keyId: string; madeFrom?: string }
  | { valid: false; problem: SignatureProblem; reason: string };

/**
 * A Signer for sigstore-js over a key the user holds: ECDSA P-256 / SHA-256 via node:crypto. The
 * key hint (the SPKI digest) is what a verifier uses to pick the public key.
 */
function keySigner(key: SigningKey): Signer {
  return {
    async sign(data) {
      return {
        signature: sign('sha256', data, key.privateKey),
        key: { $case: 'publicKey', publicKey: key.publicKey.pem, hint: key.publicKey.keyId },
      };
    },
  };
}

/**
 * sigstore-js's DSSE bundle builder, from its own module: the package's index also loads its
 * Fulcio, Rekor and TSA clients and their HTTP stack (five times the CPU to import), which a
 * signature with the user's own key and no witnesses never uses. The package has no `exports`
 * map, so the module is reachable; should a later version move it, the index is imported instead.
 */
async function dsseBundleBuilder(): Promise<typeof import('@sigstore/sign').DSSEBundleBuilder> {
  try {
    return (await import('@sigstore/sign/dist/bundler/dsse.js')).DSSEBundleBuilder;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    return (await import('@sigstore/sign')).DSSEBundleBuilder;
  }
}

/**
 * Sign the claim "this repository's manifest has this digest" into a Sigstore bundle (v0.3, DSSE
 * envelope, public-key verification material). No witnesses: no Fulcio certificate, no Rekor
 * entry, no network; trust comes from the configured public key alone.
 */
export async function signClaim(key: SigningKey, claim: ImageClaim): Promise<Uint8Array> {
  // Loaded on first use: sigstore-js takes about half a second to import, and most commands that
  // share a module graph with signing (stamp, promote to dev) never sign.
  const [DSSEBundleBuilder, { bundleToJSON }] = await Promise.all([
    dsseBundleBuilder(),
    import('@sigstore/bundle'),
  ]);
  const builder = new DSSEBundleBuilder({ signer: keySigner(key), witnesses: [] });
  const bundle = await builder.create({ data: statementFor(claim), type: PAYLOAD_TYPE });
  return Buffer.from(JSON.stringify(bundleToJSON(bundle)));
}

/**
 * Check a bundle against the configured public key and the image it is attached to. The
 * signature is checked by @sigstore/verify (key from the hint, no transparency log, no
 * certificate thresholds); the claim inside is then checked against the image's own digest and
 * repository, so a valid signature for another image is still refused.
 */
export async function checkBundle(
  bytes: Uint8Array,
  trusted: PublicSigningKey,
  expected: ImageClaim,
): Promise<SignatureVerdict> {
  const [{ bundleFromJSON, isBundleWithDsseEnvelope, isBundleWithPublicKey }, verify] = await Promise.all([
    import('@sigstore/bundle'),
    import('@sigstore/verify'),
  ]);
  const { toSignedEntity, toTrustMaterial, Verifier } = verify;
  let bundle: Bundle;
  try {
    bundle = bundleFromJSON(JSON.parse(Buffer.from(bytes).toString('utf8')));
  } catch (error) {
    return {
      valid: false,
      problem: 'unreadable',
      reason: `not a Sigstore bundle (${(error as Error).message})`,
    };
  }
  if (!isBundleWithDsseEnvelope(bundle) || !isBundleWithPublicKey(bundle)) {
    return { valid: false, problem: 'unreadable', reason: 'not a key-signed DSSE bundle' };
  }
  const hint = bundle.verificationMaterial.content.publicKey.hint;
  if (hint !== trusted.keyId) {
    return {
      valid: false,
      problem: 'other-key',
      reason: `signed by another key (${shortKeyId(hint) || 'no key id'}), not the configured key ${shortKeyId(trusted.keyId)}`,
    };
  }
  const verifier = new Verifier(
    toTrustMaterial(
      { mediaType: '', certificateAuthorities: [], timestampAuthorities: [], tlogs: [], ctlogs: [] },
      (keyHint) => {
        if (keyHint !== trusted.keyId) throw new Error(`unknown key ${keyHint}`);
        return { publicKey: trusted.key, validFor: () => true };
      },
    ),
    { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 },
  );
  try {
    verifier.verify(toSignedEntity(bundle));
  } catch {
    return {
      valid: false,
      problem: 'bad-signature',
      reason: `the signature does not match its payload under the configured key ${shortKeyId(trusted.keyId)} (the payload was modified, or the key id is forged)`,
    };
  }
  const envelope = bundle.content.dsseEnvelope;
  const claim = claimOf(envelope.payloadType, Buffer.from(envelope.payload));
  if (typeof claim === 'string') return { valid: false, problem: 'unreadable', reason: claim };
  if (claim.digest !== expected.digest) {
    return {
      valid: false,
      problem: 'other-image',
      reason: `the signature is for ${claim.digest}, not this image's ${expected.digest}`,
    };
  }
  if (claim.repository !== expected.repository) {
    return {
      valid: false,
      problem: 'other-image',
      reason: `the signature is for repository ${claim.repository}, not ${expected.repository}`,
    };
  }
  return { valid: true, keyId: trusted.keyId, ...(claim.madeFrom ? { madeFrom: claim.madeFrom } : {}) };
}

/**
 * Sign any in-toto statement (SBOM, provenance, release set) into a Sigstore bundle v0.3 with a
 * DSSE envelope, exactly as image signatures are: `cosign verify-attestation --key` reads them.
 */
export async function signStatement(key: SigningKey, statement: Uint8Array): Promise<Uint8Array> {
  const [DSSEBundleBuilder, { bundleToJSON }] = await Promise.all([
    dsseBundleBuilder(),
    import('@sigstore/bundle'),
  ]);
  const builder = new DSSEBundleBuilder({ signer: keySigner(key), witnesses: [] });
  const bundle = await builder.create({ data: Buffer.from(statement), type: PAYLOAD_TYPE });
  return Buffer.from(JSON.stringify(bundleToJSON(bundle)));
}

export type OpenedBundle =
  | { valid: true; payload: Buffer }
  | { valid: false; problem: Exclude<SignatureProblem, 'other-image'>; reason: string };

/**
 * Check a bundle's DSSE signature under the trusted key and return the payload it vouches for;
 * what the payload says is for the caller to check (it differs per kind of statement).
 */
export async function openBundle(bytes: Uint8Array, trusted: PublicSigningKey): Promise<OpenedBundle> {
  const [{ bundleFromJSON, isBundleWithDsseEnvelope, isBundleWithPublicKey }, verify] = await Promise.all([
    import('@sigstore/bundle'),
    import('@sigstore/verify'),
  ]);
  let bundle: Bundle;
  try {
    bundle = bundleFromJSON(JSON.parse(Buffer.from(bytes).toString('utf8')));
  } catch (error) {
    return {
      valid: false,
      problem: 'unreadable',
      reason: `not a Sigstore bundle (${(error as Error).message})`,
    };
  }
  if (!isBundleWithDsseEnvelope(bundle) || !isBundleWithPublicKey(bundle))
    return { valid: false, problem: 'unreadable', reason: 'not a key-signed DSSE bundle' };
  const hint = bundle.verificationMaterial.content.publicKey.hint;
  if (hint !== trusted.keyId) {
    return {
      valid: false,
      problem: 'other-key',
      reason: `signed by another key (${shortKeyId(hint) || 'no key id'}), not the configured key ${shortKeyId(trusted.keyId)}`,
    };
  }
  const verifier = new verify.Verifier(
    verify.toTrustMaterial(
      { mediaType: '', certificateAuthorities: [], timestampAuthorities: [], tlogs: [], ctlogs: [] },
      (keyHint) => {
        if (keyHint !== trusted.keyId) throw new Error(`unknown key ${keyHint}`);
        return { publicKey: trusted.key, validFor: () => true };
      },
    ),
    { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 },
  );
  try {
    verifier.verify(verify.toSignedEntity(bundle));
  } catch {
    return {
      valid: false,
      problem: 'bad-signature',
      reason: `the signature does not match its payload under the configured key ${shortKeyId(trusted.keyId)}`,
    };
  }
  const envelope = bundle.content.dsseEnvelope;
  if (envelope.payloadType !== PAYLOAD_TYPE)
    return { valid: false, problem: 'unreadable', reason: `payload type is not ${PAYLOAD_TYPE}` };
  return { valid: true, payload: Buffer.from(envelope.payload) };
}
