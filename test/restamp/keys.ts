import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type PublicSigningKey, parsePublicKey } from '../../src/signing/keys.ts';

/** The public key `writeKeyPair` wrote into `dir`. */
export async function publicKeyOf(dir: string): Promise<PublicSigningKey> {
  return parsePublicKey(await readFile(join(dir, 'release-signing.pub'), 'utf8'), 'release-signing.pub');
}
