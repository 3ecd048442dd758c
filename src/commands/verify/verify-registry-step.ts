import type { Step } from '../../pipeline/step.ts';
import { probeRegistry } from '../../verify/probes/registry.ts';
import { probeWorkerDocker } from '../../verify/probes/worker-docker.ts';
import { imageTagOf } from '../../version/image-tag.ts';
import { deployedVersion } from './deployed-images.ts';
import type { VerifyContext } from './verify-context.ts';

/** `--registry`: the digest each image's expected tag points to, against the digests running. */
export const verifyRegistryStep: Step<VerifyContext> = {
  title: 'Compare running digests with the registry',
  skip: (ctx) => (ctx.store ? false : 'pass --registry (with --docker) to compare digests'),
  async run(ctx, io) {
    const probed = ctx.probed!;
    const version = deployedVersion(ctx);
    if (!version) {
      ctx.registry = [];
      io.progress('no readable tag to look up');
      return;
    }
    const tag = imageTagOf(version);
    const running = [...probed.results, ...probed.digests].filter((r) => r.image !== undefined && !r.error);
    const artifacts = (['api', 'worker', 'web'] as const).filter((name) =>
      running.some((r) => r.name === name),
    );
    ctx.registry = await Promise.all([
      ...artifacts.map((name) =>
        probeRegistry({
          store: ctx.store!,
          artifact: name,
          repository: ctx.options.images[name],
          tag,
          running: running.filter((r) => r.name === name && r.running !== false),
        }),
      ),
      // Extra images are released in step with the rest: the same tag must exist, and whatever
      // runs of them on the engine must be the digest it names.
      ...Object.entries(ctx.extraImages ?? {}).map(async ([name, repository]) => {
        const found = ctx.target.docker
          ? await probeWorkerDocker({
              ...(ctx.target.docker.host ? { host: ctx.target.docker.host } : {}),
              image: repository,
              env: ctx.env,
              timeoutMs: ctx.options.timeoutMs,
            })
          : [];
        const live = found.filter((r) => r.image !== undefined && !r.error && r.running !== false);
        return probeRegistry({ store: ctx.store!, artifact: name, repository, tag, running: live });
      }),
    ]);
    io.progress(`${ctx.registry.length} image(s) looked up at ${tag}`);
  },
};
