import { prepareSbomValidator } from '../../evidence/validate-sbom.ts';
import type { Step } from '../../pipeline/step.ts';
import { type BuildContext, imagesToBuild } from './build-context.ts';

/**
 * The SBOM schema compiled in this process while the build commands run in theirs: the evidence
 * step then only checks each SBOM against it.
 */
export const buildPrepareSbomCheckStep: Step<BuildContext> = {
  title: 'Prepare the SBOM check',
  skip: (ctx) => (imagesToBuild(ctx).length === 0 ? 'no image to build (--only)' : false),
  async run() {
    await prepareSbomValidator();
  },
};
