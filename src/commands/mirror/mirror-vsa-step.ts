import { RuleError } from '../../errors.ts';
import { checkVsaReferrers, isVsaReferrer, withoutVsas } from '../../mirror/vsa-referrers.ts';
import type { Step } from '../../pipeline/step.ts';
import type { MirrorContext } from './mirror-context.ts';

/**
 * The release's verification summaries: checked with `verifier.publicKey` and carried, or, when
 * no verifier key is configured, left behind with a warning (nothing here could vouch for them).
 */
export const mirrorVsaStep: Step<MirrorContext> = {
  title: 'Check the verification summaries with the verifier key',
  skip: (ctx) =>
    ctx.set!.manifests.some(isVsaReferrer) ? false : 'the release carries no verification summary',
  async run(ctx, io) {
    if (!ctx.verifier) {
      const { set, dropped } = withoutVsas(ctx.set!);
      ctx.set = set;
      ctx.warnings.push(
        `${dropped} verification summar${dropped === 1 ? 'y' : 'ies'} left behind: set verifier.publicKey to carry them checked`,
      );
      return;
    }
    const problems = await checkVsaReferrers(ctx.from, ctx.verifier, ctx.set!);
    if (problems.length)
      throw new RuleError(
        'MIRROR_VSA_REFUSED',
        `${ctx.from.name}: ${ctx.version} is not loaded: ${problems.join('; ')}`,
        {
          hint: 'mirror from a source holding the summaries as the verifier signed them, or check verifier.publicKey',
        },
      );
    io.progress(`${ctx.set!.manifests.filter(isVsaReferrer).length} summaries verified`);
  },
};
