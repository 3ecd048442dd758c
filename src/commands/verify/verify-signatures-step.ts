import type { Step } from '../../pipeline/step.ts';
import { probeSignatures } from '../../verify/probes/signature.ts';
import { deployedImages, deployedVersion, storeTagOf } from './deployed-images.ts';
import type { VerifyContext } from './verify-context.ts';

/**
 * `release verify` with a store and `signing.publicKey`: per image of the deployment, whether
 * the digest it runs (known from the engine with --docker; else the one its tag names) carries a
 * valid signature from the configured key.
 */
export const verifySignaturesStep: Step<VerifyContext> = {
  title: 'Check the image signatures',
  skip: (ctx) =>
    !ctx.trustedKey
      ? 'no signing.publicKey in the config'
      : !ctx.store
        ? 'pass --registry or --require-signature to check signatures'
        : false,
  async run(ctx, io) {
    const version = deployedVersion(ctx);
    if (!version) {
      ctx.signatures = [];
      io.progress('no readable tag to look up');
      return;
    }
    const images = deployedImages(ctx, await storeTagOf(ctx, version));
    const readings = await Promise.all(
      images.map((image) =>
        probeSignatures(ctx.store!, ctx.trustedKey!, image, {
          // A config that names `legacy` holds every image to its cosign `.sig` tag; otherwise a
          // `.sig` tag is checked where there is one (releases signed before it was written pass).
          cosign: ctx.config.signing?.formats?.includes('legacy') ? 'require' : 'check',
        }),
      ),
    );
    ctx.signatures = readings.flat();
    io.progress(ctx.signatures.map((s) => `${s.artifact}: ${s.status}`).join(', '));
  },
};
