import { join } from 'node:path';
import { stageArtifact } from '../../build/stage.ts';
import type { Step } from '../../pipeline/step.ts';
import { type BuildContext, imagesToBuild } from './build-context.ts';

/** Bundle api, worker and web server; build the web client; lay out each image's files. */
export const buildStageStep: Step<BuildContext> = {
  title: 'Bundle the artifacts',
  skip: (ctx) => (imagesToBuild(ctx).length === 0 ? 'no image to build (--only cli)' : false),
  async run(ctx, io) {
    for (const artifact of imagesToBuild(ctx)) {
      io.progress(artifact);
      ctx.staged[artifact] = await stageArtifact({
        artifact,
        dir: join(ctx.distDir, 'images', artifact),
        tag: ctx.tag!,
        ...(ctx.cli ? { cliArchive: ctx.cli.path } : {}),
      });
    }
  },
};
