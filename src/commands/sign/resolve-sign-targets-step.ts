import { ExternalError, RuleError } from '../../errors.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import type { Step } from '../../pipeline/step.ts';
import type { SigningFields } from './sign-context.ts';

/**
 * Turn every target into the manifest digest the store holds now. Signing is by digest only, so
 * this is the one place a tag is read; when the release record knows the digest that was built,
 * a tag that points anywhere else is refused rather than signed.
 */
export const resolveSignTargetsStep: Step<BaseContext & SigningFields> = {
  title: 'Resolve the images to sign by digest',
  async run(ctx, io) {
    for (const target of ctx.signTargets) {
      const found = await ctx.store.resolve(target.repository, target.reference);
      if (!found) {
        throw new ExternalError(
          'IMAGE_MISSING',
          `${target.artifact}: ${ctx.store.name} has no ${target.repository}${separator(target.reference)}${target.reference}`,
          {
            hint: 'push (or promote) the image before signing it, or check the reference',
          },
        );
      }
      if (target.expected && found.digest !== target.expected) {
        throw new RuleError(
          'SIGN_DIGEST_MOVED',
          `${target.artifact}: ${target.repository}:${target.reference} is ${found.digest}, but the release record built ${target.expected}`,
          {
            hint: 'the tag was re-pushed after the build; sign an explicit digest (release sign <image>@sha256:...) only if you trust it, or rebuild',
          },
        );
      }
      target.digest = found.digest;
      io.progress(`${target.repository}@${found.digest.slice(0, 19)}`);
    }
  },
};

function separator(reference: string): string {
  return reference.startsWith('sha256:') ? '@' : ':';
}
