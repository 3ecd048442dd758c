import { resolve } from 'node:path';
import type { ReleaseConfig } from '../config/schema.ts';
import { UsageError } from '../errors.ts';
import { projectPath } from '../files/project-path.ts';
import { readKeyFile } from './key-files.ts';
import { type PublicSigningKey, parsePrivateKey, parsePublicKey, type SigningKey } from './keys.ts';

/**
 * The verifier's key pair: who signs verification summaries is not who signs releases (a gate
 * trusts "this was checked" from its verifier, and a release key that leaked must not be able to
 * vouch for its own release), so it has its own files, variables and config section.
 */
export const VERIFIER_PASSPHRASE_ENV = 'RELEASE_VERIFIER_PASSPHRASE';
/** Holds the verifier's private key itself (PEM, for CI secrets) or a path to it. */
export const VERIFIER_KEY_ENV = 'RELEASE_VERIFIER_KEY';
export const VERIFIER_KEY_FILE_NAMES = {
  privateKey: 'release-verifier.key',
  publicKey: 'release-verifier.pub',
} as const;

interface VerifierKeyLocation {
  cwd: string;
  configDir: string;
  config: Pick<ReleaseConfig, 'verifier'>;
  env: Record<string, string | undefined>;
}

/** The verifier's private key: `--verifier-key`, else `RELEASE_VERIFIER_KEY`, else `verifier.privateKey`. */
export async function readVerifierKey(
  location: VerifierKeyLocation & { keyPath?: string | undefined; releaseKeyId: string },
): Promise<SigningKey> {
  const { pem, source } = await locate(location);
  const key = parsePrivateKey(pem, location.env[VERIFIER_PASSPHRASE_ENV], source, VERIFIER_PASSPHRASE_ENV);
  if (key.publicKey.keyId === location.releaseKeyId)
    throw new UsageError('VERIFIER_IS_RELEASE_KEY', `${source} is the release key itself`, {
      hint: 'a release key must not vouch for its own release: create a verifier key with `release keygen --verifier`',
    });
  const configured = await readVerifierPublicKey(location);
  if (configured && configured.keyId !== key.publicKey.keyId) {
    throw new UsageError(
      'VERIFIER_KEY_MISMATCH',
      `the verifier key ${source} does not match verifier.publicKey`,
      { hint: 'sign with the private key of verifier.publicKey, or update verifier.publicKey' },
    );
  }
  return key;
}

/** The verifier's public key: `--verifier-pub <file>`, else `verifier.publicKey`; undefined when neither. */
export async function readVerifierPublicKey(
  location: Omit<VerifierKeyLocation, 'env'> & { publicKeyPath?: string | undefined },
): Promise<PublicSigningKey | undefined> {
  if (location.publicKeyPath) {
    const path = resolve(location.cwd, location.publicKeyPath);
    return parsePublicKey(await readKeyFile(path, '--verifier-pub'), path);
  }
  const setting = location.config.verifier?.publicKey;
  if (!setting) return undefined;
  // A repository's config names a key inside the project, never through a link out of it.
  const path = projectPath(location.configDir, setting, { setting: 'verifier.publicKey' });
  return parsePublicKey(await readKeyFile(path, 'verifier.publicKey'), path);
}

async function locate(
  location: VerifierKeyLocation & { keyPath?: string | undefined },
): Promise<{ pem: string; source: string }> {
  if (location.keyPath) {
    const path = resolve(location.cwd, location.keyPath);
    return { pem: await readKeyFile(path, '--verifier-key'), source: path };
  }
  const fromEnv = location.env[VERIFIER_KEY_ENV]?.trim();
  if (fromEnv) {
    if (fromEnv.startsWith('-----BEGIN')) return { pem: fromEnv, source: `$${VERIFIER_KEY_ENV}` };
    const path = resolve(location.cwd, fromEnv);
    return { pem: await readKeyFile(path, VERIFIER_KEY_ENV), source: path };
  }
  const setting = location.config.verifier?.privateKey;
  if (setting) {
    // A repository's config names a key inside the project, never through a link out of it.
    const path = projectPath(location.configDir, setting, { setting: 'verifier.privateKey' });
    return { pem: await readKeyFile(path, 'verifier.privateKey'), source: path };
  }
  throw new UsageError(
    'VERIFIER_KEY_MISSING',
    `--attest signs with the verifier's key: pass --verifier-key <file>, set ${VERIFIER_KEY_ENV}, or set verifier.privateKey in the config`,
    { hint: 'create one with `release keygen --verifier` (a key pair of its own, not the release key)' },
  );
}
