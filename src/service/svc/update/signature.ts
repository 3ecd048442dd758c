import { createHash, createPublicKey, verify } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ExternalError } from '../../../errors.ts';
import { sanitize } from '../sanitize.ts';

/** The header the API sends the archive's signature in (base64 DER ECDSA P-256 over SHA-256). */
export const SIGNATURE_HEADER = 'x-signature-ecdsa-sha256';

export type SignatureCheck =
  | { status: 'verified'; keyId: string }
  | { status: 'no-key' }
  | { status: 'skipped'; keyId: string };

/**
 * Authenticity, not only integrity: the checksum header proves only that the bytes are
 * what the same server said. When this svc was built with `signing.publicKey`, the archive must
 * carry a signature by that key, checked here, before any byte of it runs (the trial run) or is
 * installed. node:crypto only: no Sigstore in the svc bundle.
 */
export async function checkArchiveSignature(
  file: string,
  signature: string | undefined,
  publicKeyPem: string | undefined,
  skip: boolean,
): Promise<SignatureCheck> {
  if (!publicKeyPem) return { status: 'no-key' };
  const key = createPublicKey(publicKeyPem);
  const keyId = createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);
  if (skip) return { status: 'skipped', keyId };
  if (!signature) {
    throw new ExternalError(
      'ARCHIVE_UNSIGNED',
      `the archive carries no signature (no ${SIGNATURE_HEADER} header), and this svc only installs archives signed by key ${keyId}`,
      {
        hint: 'nothing was installed; the API must serve a signed archive (release build with signing.publicKey and the signing key). To install it anyway: svc update --insecure-skip-signature',
      },
    );
  }
  const bytes = await readFile(file);
  const raw = Buffer.from(signature, 'base64');
  let valid = false;
  try {
    valid = raw.length > 0 && verify('sha256', bytes, key, raw);
  } catch {
    valid = false;
  }
  if (!valid) {
    throw new ExternalError(
      'ARCHIVE_SIGNATURE_INVALID',
      `the archive's signature (${sanitize(signature, 24)}) does not verify with key ${keyId} baked into this svc`,
      {
        hint: 'nothing was installed; the archive was not signed by the release key (replaced or tampered with on the way, or built without it)',
      },
    );
  }
  return { status: 'verified', keyId };
}
