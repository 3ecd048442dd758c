import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ReleaseConfig } from '../config/schema.ts';
import { ReleaseError, RuleError, SIGNING_KEY_MISSING, UsageError } from '../errors.ts';
import { writeFilesAtomically } from '../files/atomic-write.ts';
import { projectPath } from '../files/project-path.ts';
import {
  generateSigningKeys,
  PASSPHRASE_ENV,
  type PublicSigningKey,
  parsePrivateKey,
  parsePublicKey,
  type SigningKey,
  shortKeyId,
} from './keys.ts';

/** Holds the private key itself (PEM, for CI secrets) or a path to it. */
export const PRIVATE_KEY_ENV = 'RELEASE_SIGNING_KEY';
export const KEY_FILE_NAMES = {
  privateKey: 'release-signing.key',
  publicKey: 'release-signing.pub',
} as const;

interface KeyLocation {
  cwd: string;
  configDir: string;
  config: Pick<ReleaseConfig, 'signing'>;
  env: Record<string, string | undefined>;
}

/**
 * Write a new key pair into `outDir`: the private key encrypted with the passphrase from
 * `RELEASE_SIGNING_PASSPHRASE` (mode 0600), the public key beside it. Refuses to replace either
 * file: a lost private key cannot be recovered, and a replaced public key silently invalidates
 * every signature made so far.
 */
export async function writeKeyPair(
  outDir: string,
  env: Record<string, string | undefined>,
  /** Which pair: the release key (default) or the verifier's, with its own names and passphrase. */
  pair: { names: { privateKey: string; publicKey: string }; passphraseEnv: string } = {
    names: KEY_FILE_NAMES,
    passphraseEnv: PASSPHRASE_ENV,
  },
): Promise<{ privateKey: string; publicKey: string; keyId: string }> {
  const passphrase = env[pair.passphraseEnv];
  if (!passphrase) {
    throw new UsageError(
      'SIGNING_PASSPHRASE_MISSING',
      `${pair.passphraseEnv} is not set; the private key is always encrypted`,
      {
        hint: `export ${pair.passphraseEnv}=<a passphrase you keep in your secret store>, then run again`,
      },
    );
  }
  const privatePath = join(outDir, pair.names.privateKey);
  const publicPath = join(outDir, pair.names.publicKey);
  const existing = [privatePath, publicPath].filter((path) => existsSync(path));
  if (existing.length > 0) {
    // Never overwriting a file is a rule, like an immutable tag (exit 1), as `release init` refuses.
    throw new RuleError('SIGNING_KEY_EXISTS', `refusing to overwrite ${existing.join(' and ')}`, {
      hint: 'move the old keys away first (signatures made with them verify only with the old public key), or pass --out <another dir>',
    });
  }
  const { privatePem, publicKey } = generateSigningKeys(passphrase);
  await writeFilesAtomically([
    { path: privatePath, content: privatePem, mode: 0o600 },
    { path: publicPath, content: publicKey.pem, mode: 0o644 },
  ]);
  return { privateKey: privatePath, publicKey: publicPath, keyId: publicKey.keyId };
}

/** The configured public key every signature is checked against; undefined when none is configured. */
export async function readPublicKey(
  location: Pick<KeyLocation, 'configDir' | 'config'>,
): Promise<PublicSigningKey | undefined> {
  const setting = location.config.signing?.publicKey;
  if (!setting) return undefined;
  // A repository's config names a key inside the project, never through a link out of it.
  const path = projectPath(location.configDir, setting, { setting: 'signing.publicKey' });
  return parsePublicKey(await readKeyFile(path, 'signing.publicKey'), path);
}

/**
 * The private key to sign with: `--key <path>`, else `RELEASE_SIGNING_KEY` (the PEM itself, or a
 * path), else `signing.privateKey` in the config. When a public key is configured the private key
 * must match it, so a signature is never made that the release step would then refuse.
 */
export async function readSigningKey(
  location: KeyLocation & { keyPath?: string | undefined },
): Promise<SigningKey> {
  const { pem, source } = await locatePrivateKey(location);
  const key = parsePrivateKey(pem, location.env[PASSPHRASE_ENV], source);
  const configured = await readPublicKey(location);
  if (configured && configured.keyId !== key.publicKey.keyId) {
    throw new UsageError(
      'SIGNING_KEY_MISMATCH',
      `the signing key ${source} (key ${shortKeyId(key.publicKey.keyId)}) does not match signing.publicKey (key ${shortKeyId(configured.keyId)})`,
      { hint: 'sign with the private key of the configured public key, or update signing.publicKey' },
    );
  }
  return key;
}

/** Whether a private key is available at all (promote's "refuses without a key" check). */
export function hasSigningKey(location: KeyLocation & { keyPath?: string | undefined }): boolean {
  return Boolean(location.keyPath || location.env[PRIVATE_KEY_ENV] || location.config.signing?.privateKey);
}

async function locatePrivateKey(
  location: KeyLocation & { keyPath?: string | undefined },
): Promise<{ pem: string; source: string }> {
  if (location.keyPath) {
    const path = resolve(location.cwd, location.keyPath);
    return { pem: await readKeyFile(path, '--key'), source: path };
  }
  const fromEnv = location.env[PRIVATE_KEY_ENV]?.trim();
  if (fromEnv) {
    if (fromEnv.startsWith('-----BEGIN')) return { pem: fromEnv, source: `$${PRIVATE_KEY_ENV}` };
    const path = resolve(location.cwd, fromEnv);
    return { pem: await readKeyFile(path, PRIVATE_KEY_ENV), source: path };
  }
  const setting = location.config.signing?.privateKey;
  if (setting) {
    // A repository's config names a key inside the project, never through a link out of it.
    const path = projectPath(location.configDir, setting, { setting: 'signing.privateKey' });
    return { pem: await readKeyFile(path, 'signing.privateKey'), source: path };
  }
  throw new UsageError(
    SIGNING_KEY_MISSING,
    'no signing key: pass --key <file>, set RELEASE_SIGNING_KEY, or set signing.privateKey in the config',
    {
      hint: 'create one with `release keygen` (the signing guide: node_modules/service-release/docs/guides/signing.md)',
    },
  );
}

export async function readKeyFile(path: string, setting: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    throw new UsageError('SIGNING_KEY_NOT_FOUND', `cannot read the key file ${path} (from ${setting})`, {
      hint: 'check the path; `release keygen` writes release-signing.key and release-signing.pub',
    });
  }
}

/**
 * The release key when it can be used here, or why not: no private key, no passphrase, or a key
 * configured but not made yet (before `release keygen`), each "no key". A wrong passphrase or
 * another key is an error. The steps that sign evidence write it unsigned when there is no key.
 */
export async function usableSigningKey(
  location: KeyLocation & { keyPath?: string | undefined },
): Promise<{ key: SigningKey } | { unsigned: string }> {
  if (!hasSigningKey(location))
    return {
      unsigned:
        'no private key: set RELEASE_SIGNING_KEY and RELEASE_SIGNING_PASSPHRASE, or signing.privateKey',
    };
  if (!location.env[PASSPHRASE_ENV]) return { unsigned: `${PASSPHRASE_ENV} is not set` };
  try {
    return { key: await readSigningKey(location) };
  } catch (error) {
    if (error instanceof ReleaseError && error.code === 'SIGNING_KEY_NOT_FOUND')
      return { unsigned: error.message };
    throw error;
  }
}
