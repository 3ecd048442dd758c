import type { Step } from '../../pipeline/step.ts';
import { probeDeployment } from '../../verify/probe-deployment.ts';
import type { VerifyContext } from './verify-context.ts';

/** Read every artifact's version, all probes at once, each within its own deadline. */
export const verifyProbeStep: Step<VerifyContext> = {
  title: 'Read the version of every artifact',
  async run(ctx, io) {
    ctx.probed = await probeDeployment(ctx.target, {
      ...ctx.options,
      workerImage: ctx.options.images.worker,
    });
    const read = ctx.probed.results.filter((r) => r.version !== undefined).length;
    io.progress(`${read} of ${ctx.probed.results.length} read`);
  },
};
