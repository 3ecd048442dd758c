import type { BaseContext } from '../../pipeline/context.ts';
import type { Step } from '../../pipeline/step.ts';
import { readSigningKey } from '../../signing/key-files.ts';
import { shortKeyId } from '../../signing/keys.ts';
import type { SigningFields } from './sign-context.ts';

/**
 * Unlock the private key before anything else, so a missing key or a wrong passphrase fails
 * before any registry is touched. Runs in a dry run too: it changes nothing and proves the key.
 */
export const loadSigningKeyStep: Step<BaseContext & SigningFields> = {
  title: 'Unlock the signing key',
  async run(ctx, io) {
    ctx.signingKey = await readSigningKey({ ...ctx, keyPath: ctx.keyPath });
    io.progress(`key ${shortKeyId(ctx.signingKey.publicKey.keyId)}`);
  },
};
