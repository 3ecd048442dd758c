import type { Step } from '../../pipeline/step.ts';
import { referenceOf } from '../../verify/checks.ts';
import { probeSignatures } from '../../verify/probes/signature.ts';
import { imageTagOf } from '../../version/image-tag.ts';
import { parseVersion } from '../../version/parse.ts';
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
    const probed = ctx.probed!;
    const live = probed.results.filter((r) => r.version !== undefined && r.running !== false);
    const reference = referenceOf(live, ctx.options.expect);
    if (!reference) {
      ctx.signatures = [];
      io.progress('no readable tag to look up');
      return;
    }
    const tag = imageTagOf(parseVersion(reference.tag));
    const images = (['api', 'worker', 'web'] as const).filter((name) => probed.probed.includes(name));
    const readings = await Promise.all(
      images.map((artifact) =>
        probeSignatures(ctx.store!, ctx.trustedKey!, {
          artifact,
          repository: ctx.options.images[artifact],
          tag,
          running: ctx.registry?.find((r) => r.artifact === artifact)?.running ?? [],
        }),
      ),
    );
    ctx.signatures = readings.flat();
    io.progress(ctx.signatures.map((s) => `${s.artifact}: ${s.status}`).join(', '));
  },
};
