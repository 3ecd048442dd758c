import { imageLabels, imageSpec } from '../../build/image-specs.ts';
import { createDockerEngine } from '../../engine/docker/docker-engine.ts';
import type { Engine } from '../../engine/engine.ts';
import { createOciEngine } from '../../engine/oci/oci-engine.ts';
import type { Step } from '../../pipeline/step.ts';
import { parseStoreImageRef } from '../../registry/image-ref.ts';
import { type BuildContext, imagesToBuild } from './build-context.ts';

/** Build (and with --push, publish) each selected image with the chosen engine. */
export const buildImagesStep: Step<BuildContext> = {
  title: 'Build the images',
  skip: (ctx) => (imagesToBuild(ctx).length === 0 ? 'no image to build (--only cli)' : false),
  async run(ctx, io) {
    const engine = engineOf(ctx);
    for (const artifact of imagesToBuild(ctx)) {
      const image = ctx.config.artifacts[artifact].image;
      const labels = {
        tag: ctx.tag!,
        commit: ctx.record!.commit,
        epoch: ctx.epoch!,
        source: ctx.source!,
        title: image,
      };
      const label = imageLabels(labels);
      ctx.built[artifact] = await engine.build(
        {
          artifact,
          staged: ctx.staged[artifact]!,
          spec: imageSpec(artifact, labels),
          buildArgs: {
            [artifact === 'web' ? 'SERVICE_CLIENT_VERSION' : 'SERVICE_VERSION']: ctx.tag!,
            IMAGE_CREATED: label['org.opencontainers.image.created']!,
            IMAGE_REVISION: label['org.opencontainers.image.revision']!,
            IMAGE_SOURCE: label['org.opencontainers.image.source']!,
            IMAGE_TITLE: label['org.opencontainers.image.title']!,
            IMAGE_VERSION: label['org.opencontainers.image.version']!,
          },
          base: parseStoreImageRef(ctx.config.artifacts[artifact].base),
          registry: ctx.config.registry,
          repository: image,
          tag: ctx.tag!,
          push: ctx.push,
        },
        (line) => io.progress(`${artifact}: ${line}`),
      );
    }
  },
};

function engineOf(ctx: BuildContext): Engine {
  const choice = ctx.engine!;
  if (choice.name === 'docker') {
    return createDockerEngine({ docker: choice.docker!, open: ctx.open, env: ctx.env, epoch: ctx.epoch! });
  }
  return createOciEngine({ open: ctx.open, epoch: ctx.epoch! });
}
