import { isReleaseError, RuleError, SIGNING_KEY_MISSING } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { PRIVATE_KEY_ENV, readSigningKey } from '../../signing/key-files.ts';
import { shortKeyId } from '../../signing/keys.ts';
import type { PromoteContext } from './promote-context.ts';

/** A key that is not there or not unlockable here: no key, a missing file, no passphrase. */
const UNAVAILABLE_KEY = [SIGNING_KEY_MISSING, 'SIGNING_KEY_NOT_FOUND', 'SIGNING_PASSPHRASE_MISSING'];

/**
 * The rc channel signs what it promotes, so the key is unlocked before any tag is written: a
 * promotion that would end unsigned is refused up front unless `--no-sign` says so on purpose.
 * A release signs what it re-stamped, and every rc and release signs its release set: those keys
 * are unlocked here too, before the writes, so nothing about the key can fail after them.
 */
export const promoteSigningKeyStep: Step<PromoteContext> = {
  title: 'Unlock the signing key',
  skip: (ctx) =>
    ctx.channel === 'dev'
      ? 'the dev channel is not signed'
      : ctx.sign === false
        ? `--no-sign: ${ctx.channel === 'rc' ? 'this release candidate' : 'the release'} will not be signed`
        : false,
  async run(ctx, io) {
    try {
      ctx.signingKey = ctx.archiveSigningKey ?? (await readSigningKey({ ...ctx, keyPath: ctx.keyPath }));
    } catch (error) {
      // A full release is signed when a key is there; without one it is promoted, and
      // the output and record say it is unsigned. An rc without a key is refused.
      if (ctx.channel === 'release' && isReleaseError(error) && error.code === SIGNING_KEY_MISSING) {
        io.progress('no signing key: the release will not be signed');
        return;
      }
      // A release that re-stamped nothing has nothing of its own to sign: a key that cannot be
      // had only leaves its release set unsigned (the release-set step says so), as before.
      if (
        ctx.channel === 'release' &&
        Object.keys(ctx.restamped ?? {}).length === 0 &&
        isReleaseError(error) &&
        UNAVAILABLE_KEY.includes(error.code)
      ) {
        io.progress(`no signing key unlocked (${error.message}): the release set will be written unsigned`);
        return;
      }
      if (isReleaseError(error) && error.code === SIGNING_KEY_MISSING) {
        throw new RuleError(
          'RC_SIGNING_KEY_MISSING',
          'the rc channel signs what it promotes, and there is no signing key',
          {
            hint: `pass --key <file>, set ${PRIVATE_KEY_ENV} or signing.privateKey (\`release keygen\` makes one), or --no-sign to promote unsigned (recorded; a release from it will be refused)`,
          },
        );
      }
      throw error;
    }
    io.progress(`key ${shortKeyId(ctx.signingKey.publicKey.keyId)}`);
  },
};
