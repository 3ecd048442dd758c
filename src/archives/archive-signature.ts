import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';

/** What a CLI archive's signature file is called: the archive's own name plus this. */
export const SIGNATURE_SUFFIX = '.sig';

/**
 * Sign a CLI archive: base64 DER ECDSA P-256 over its SHA-256, the form `svc update` checks with
 * node:crypto against the key baked into it.
 *
 * Deterministic (RFC 6979: the nonce derives from the key and the message), unlike node:crypto's
 * `sign`, which draws a random nonce. The signature lands in the API image's version layer, and
 * that layer must be reproducible: the same build gives the same image, a re-run of a release
 * re-stamps to the same digest (the version tag is immutable, so a different one would be
 * refused), and verify can trace a release to its rc. @noble/curves is audited and implements
 * RFC 6979; hand-writing the nonce derivation is exactly the kind of crypto not to write here.
 */
export function signArchive(bytes: Uint8Array, privateKey: KeyObject): string {
  const jwk = privateKey.export({ format: 'jwk' });
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.d)
    throw new TypeError('the archive signing key must be an ECDSA P-256 private key');
  const secret = Buffer.from(jwk.d, 'base64url');
  try {
    return Buffer.from(p256.sign(bytes, secret, { format: 'der' })).toString('base64');
  } finally {
    secret.fill(0);
  }
}

/** Whether `signature` (base64 DER) is `publicKey`'s signature of `bytes`; false for any malformed input. */
export function archiveSignatureValid(
  bytes: Uint8Array,
  signature: string,
  publicKey: KeyObject | string,
): boolean {
  try {
    const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
    const raw = Buffer.from(signature.trim(), 'base64');
    return raw.length > 0 && verify('sha256', bytes, key, raw);
  } catch {
    return false;
  }
}

/** The text of a signature file: the base64 signature and a newline. */
export function signatureFileText(signature: string): string {
  return `${signature}\n`;
}
