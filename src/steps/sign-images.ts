import { ExternalError } from '../errors.ts';
import type { BaseContext } from '../pipeline/context.ts';
import type { Step } from '../pipeline/step.ts';
import { checkImageSignature, signImage } from '../signing/image-signature.ts';
import type { SigningFields, SignResult } from './sign-context.ts';

/**
 * Sign each resolved digest and attach the bundle as a referrer, then read it back through the
 * same lookup `release verify` and `release promote --channel release` use, so a store that
 * accepted the push but cannot return the signature fails here rather than at release time.
 */
export const signImagesStep: Step<BaseContext & SigningFields> = {
  title: 'Sign the images by digest',
  skip: (ctx) => (ctx.dryRun ? 'dry run' : false),
  async run(ctx, io) {
    const key = ctx.signingKey!;
    const results: SignResult[] = [];
    for (const target of ctx.signTargets) {
      const image = { repository: target.repository, digest: target.digest! };
      const outcome = await signImage(ctx.store, key, image);
      const check = await checkImageSignature(ctx.store, key.publicKey, image);
      if (check.status !== 'valid') {
        throw new ExternalError(
          'SIGNATURE_NOT_READABLE',
          `${target.artifact}: the signature of ${target.repository}@${image.digest} was pushed but cannot be read back (${check.reason})`,
          {
            hint: `check that ${ctx.store.name} keeps manifests pushed by digest and the referrers tag`,
          },
        );
      }
      results.push({
        artifact: target.artifact,
        ...image,
        status: outcome.status,
        signature: outcome.signature,
      });
      io.progress(`${target.artifact}: ${outcome.status}`);
    }
    ctx.signed = results;
  },
};
