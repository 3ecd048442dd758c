import type { BaseContext } from '../../pipeline/context.ts';
import type { Step } from '../../pipeline/step.ts';
import { platformsSigned, signImageSet } from '../../signing/platform-signatures.ts';
import type { SigningFields, SignResult } from './sign-context.ts';

/**
 * Sign each resolved digest, attach the bundle as a referrer, and read it back; an index has each
 * platform child signed first (a node runs its platform's child digest, not the index).
 */
export const signImagesStep: Step<BaseContext & SigningFields> = {
  title: 'Sign the images by digest',
  writes: true,
  async run(ctx, io) {
    const key = ctx.signingKey!;
    const results: SignResult[] = [];
    for (const target of ctx.signTargets) {
      const image = { repository: target.repository, digest: target.digest! };
      const outcome = await signImageSet(ctx.store, key, image, target.artifact, {
        formats: ctx.config.signing?.formats,
      });
      results.push({
        artifact: target.artifact,
        ...image,
        status: outcome.status,
        signature: outcome.signature,
        ...(outcome.platforms ? { platforms: outcome.platforms } : {}),
      });
      io.progress(`${target.artifact}: ${outcome.status}${platformsSigned(outcome.platforms)}`);
    }
    ctx.signed = results;
  },
};
