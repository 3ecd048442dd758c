import { cacheUnsupported } from '../../build-engines/docker/builder-cache.ts';
import { chooseEngine } from '../../build-engines/select-engine.ts';
import { UsageError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { type BuildContext, imagesToBuild } from './build-context.ts';

/** docker when asked or when an engine answers; the daemonless oci engine otherwise. */
export const buildChooseEngineStep: Step<BuildContext> = {
  title: 'Choose the image engine',
  skip: (ctx) => (imagesToBuild(ctx).length === 0 ? 'no image to build (--only)' : false),
  async run(ctx, io) {
    ctx.engine = await chooseEngine(ctx.requestedEngine, ctx.env);
    io.progress(`${ctx.engine.name}: ${ctx.engine.reason}`);
    const builder = ctx.engine.builder;
    if (!builder) return;
    // Said before any image is built: the CLI would take a cache source it cannot read silently.
    const refused = imagesToBuild(ctx).flatMap((artifact) =>
      artifact.context
        ? cacheUnsupported(builder.kind, artifact.cache).map((text) => `artifacts.${artifact.name}.${text}`)
        : [],
    );
    if (refused.length)
      throw new UsageError(
        'BUILD_CACHE_NEEDS_BUILDX',
        `${builder.description} (${builder.cli}) cannot use the cache the config names:\n  ${refused.join('\n  ')}`,
        {
          hint: 'install the buildx plugin (docker-buildx-plugin) or set DOCKER_CLI to a docker CLI that has it; or name an image as cache.from and leave cache.to out',
        },
      );
  },
};
