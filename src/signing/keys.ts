import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { UsageError } from '../errors.ts';
import { registerSecret } from '../text/redact.ts';

/** The environment variable that holds the private key's passphrase (never a flag: flags leak). */
export const PASSPHRASE_ENV = 'RELEASE_SIGNING_PASSPHRASE';

export interface PublicSigningKey {
  key: KeyObject;
  /** SPKI PEM, as written to the `.pub` file. */
  pem: string;
  /** Hex SHA-256 of the SPKI DER: the bundle's key hint and the DSSE `keyid`. */
  keyId: string;
}

export interface SigningKey {
  privateKey: KeyObject;
  publicKey: PublicSigningKey;
}

// ECDSA P-256 with SHA-256 is what Sigstore's key-based bundles (and cosign keys) use.
const CURVE = 'prime256v1';

/** A new P-256 key pair; the private key as PKCS#8 PEM encrypted (AES-256, PBKDF2) with `passphrase`. */
export function generateSigningKeys(passphrase: string): { privatePem: string; publicKey: PublicSigningKey } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: CURVE });
  const privatePem = privateKey.export({
    type: 'pkcs8',
    format: 'pem',
    cipher: 'aes-256-cbc',
    passphrase,
  }) as string;
  registerSecret(privatePem);
  return { privatePem, publicKey: describePublicKey(publicKey) };
}

export function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256')
    .update(publicKey.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

/** A short form of a key id for messages (the full id is in `--json`). */
export function shortKeyId(keyId: string): string {
  return keyId.slice(0, 16);
}

/** Parse a public key (SPKI PEM); `source` names where it came from, for the error. */
export function parsePublicKey(pem: string, source: string): PublicSigningKey {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    throw new UsageError('SIGNING_PUBLIC_KEY_UNREADABLE', `${source} is not a PEM public key`, {
      hint: 'point signing.publicKey at the .pub file `release keygen` wrote',
      cause: error,
    });
  }
  checkCurve(key, source);
  return describePublicKey(key);
}

/**
 * Decrypt a private key with the passphrase from the environment. A missing or wrong passphrase
 * is a usage error that names the variable, never its value (the passphrase is registered as a
 * secret before anything can print it).
 */
export function parsePrivateKey(
  pem: string,
  passphrase: string | undefined,
  source: string,
  /** The variable the passphrase came from, for messages (the verifier key has its own). */
  passphraseEnv: string = PASSPHRASE_ENV,
): SigningKey {
  registerSecret(pem);
  registerSecret(passphrase);
  const encrypted = pem.includes('ENCRYPTED PRIVATE KEY');
  if (encrypted && !passphrase) {
    throw new UsageError(
      'SIGNING_PASSPHRASE_MISSING',
      `the signing key ${source} is encrypted and ${passphraseEnv} is not set`,
      {
        hint: `set ${passphraseEnv} to the passphrase the key was created with`,
      },
    );
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(encrypted ? { key: pem, format: 'pem', passphrase: passphrase! } : pem);
  } catch (error) {
    if (encrypted) {
      throw new UsageError(
        'SIGNING_PASSPHRASE_WRONG',
        `could not decrypt the signing key ${source}: wrong passphrase in ${passphraseEnv}`,
        {
          hint: `set ${passphraseEnv} to the passphrase given to \`release keygen\``,
        },
      );
    }
    throw new UsageError('SIGNING_KEY_UNREADABLE', `${source} is not a PEM private key`, {
      hint: 'use the .key file `release keygen` wrote',
      cause: error,
    });
  }
  checkCurve(privateKey, source);
  return { privateKey, publicKey: describePublicKey(createPublicKey(privateKey)) };
}

function describePublicKey(key: KeyObject): PublicSigningKey {
  const pem = key.export({ type: 'spki', format: 'pem' }) as string;
  return { key, pem, keyId: keyIdOf(key) };
}

function checkCurve(key: KeyObject, source: string): void {
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== CURVE) {
    throw new UsageError('SIGNING_KEY_TYPE', `${source} is not an ECDSA P-256 key`, {
      hint: 'create a key pair with `release keygen` (ECDSA P-256, as Sigstore key-based bundles use)',
    });
  }
}
