import type { BaseContext } from '../../pipeline/context.ts';
import type { Step } from '../../pipeline/step.ts';
import { signAndConfirm } from '../../signing/image-signature.ts';
import type { SigningFields, SignResult } from './sign-context.ts';

/** Sign each resolved digest, attach the bundle as a referrer, and read it back. */
export const signImagesStep: Step<BaseContext & SigningFields> = {
  title: 'Sign the images by digest',
  writes: true,
  async run(ctx, io) {
    const key = ctx.signingKey!;
    const results: SignResult[] = [];
    for (const target of ctx.signTargets) {
      const image = { repository: target.repository, digest: target.digest! };
      const outcome = await signAndConfirm(ctx.store, key, image, target.artifact);
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
