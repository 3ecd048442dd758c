import { isReleaseError, RuleError, SIGNING_KEY_MISSING } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { PRIVATE_KEY_ENV, readSigningKey } from '../../signing/key-files.ts';
import { shortKeyId } from '../../signing/keys.ts';
import type { PromoteContext } from './promote-context.ts';

/**
 * The rc channel signs what it promotes, so the key is unlocked before any tag is written: a
 * promotion that would end unsigned is refused up front unless `--no-sign` says so on purpose.
 */
export const promoteSigningKeyStep: Step<PromoteContext> = {
  title: 'Unlock the signing key',
  skip: (ctx) =>
    ctx.channel === 'dev'
      ? 'the dev channel is not signed'
      : ctx.channel === 'release' && Object.keys(ctx.restamped ?? {}).length === 0
        ? 'nothing re-stamped: the release is the images as they are, nothing new to sign'
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
