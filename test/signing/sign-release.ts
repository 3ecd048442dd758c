import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ImageStore } from '../../src/registry/store.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { parsePrivateKey } from '../../src/signing/keys.ts';
import { signImageSet } from '../../src/signing/platform-signatures.ts';

const PASSPHRASE = 'sign-release-helper-passphrase';

/**
 * Sign a release candidate the way `release promote --channel rc` does, for suites that test
 * what happens after (a release `--from` it): a key pair in `<projectDir>/keys/`, its public key
 * added to the project's `release.config.json` as `signing.publicKey`, and every digest signed
 * (an index with each platform child, as the rc promotion signs it).
 */
export async function signRelease(
  projectDir: string,
  store: ImageStore,
  digests: Record<string, string>,
  repositories: Record<string, string>,
): Promise<void> {
  const keys = await writeKeyPair(join(projectDir, 'keys'), { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE });
  const configPath = join(projectDir, 'release.config.json');
  const config = JSON.parse(readFileSync(configPath, 'utf8'));
  config.signing = { publicKey: 'keys/release-signing.pub' };
  writeFileSync(configPath, JSON.stringify(config));
  const key = parsePrivateKey(readFileSync(keys.privateKey, 'utf8'), PASSPHRASE, keys.privateKey);
  for (const [artifact, digest] of Object.entries(digests)) {
    await signImageSet(store, key, { repository: repositories[artifact]!, digest }, artifact);
  }
}
