import { artifactWithRole, imageArtifact, imageOfRole } from '../../config/artifacts.ts';
import { MIN_CLI_LABEL } from '../../config/own-minimum.ts';
import { RuleError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import type { ImageStore } from '../../registry/store.ts';
import { SERVICE_ROLES, type TargetImage } from '../../upgrade/deployment-types.ts';
import { record, type TargetContext } from './upgrade-context.ts';

/** The label a target API image may carry with its `min_cli_version` (read before any change). */
export { MIN_CLI_LABEL };

/** `<tag>` -> the manifest digest of each artifact to upgrade, as the store has it now. */
export const resolveTargetsStep: Step<TargetContext> = {
  title: 'Resolve the target tag in the registry',
  async run(ctx, io) {
    // The artifacts the first step found moving; without it, one per role named (each role's image).
    const wanted =
      ctx.targetArtifacts ??
      SERVICE_ROLES.filter((role) => ctx.serviceNames[role] !== undefined).map((role) => ({
        artifact: artifactWithRole(ctx.config, role)?.name ?? role,
        role,
      }));
    ctx.targets = await Promise.all(
      wanted.map(async ({ artifact, role }): Promise<TargetImage> => {
        const repository = imageArtifact(ctx.config, artifact)?.image ?? imageOfRole(ctx.config, role);
        const descriptor = await ctx.store.resolve(repository, ctx.tag);
        if (!descriptor) {
          throw new RuleError(
            'UPGRADE_TAG_MISSING',
            `${ctx.store.name} has no ${repository}:${ctx.tag}: there is nothing to upgrade ${artifact} to`,
            { hint: `check the tag (release promote publishes it), or upgrade to a tag every artifact has` },
          );
        }
        return {
          role,
          artifact,
          repository: `${ctx.config.registry}/${repository}`,
          tag: ctx.tag,
          digest: descriptor.digest,
        };
      }),
    );
    const api = ctx.targets.find((t) => t.role === 'api');
    if (api) {
      const min = await readLabel(ctx.store, imageOfRole(ctx.config, 'api'), api.digest, MIN_CLI_LABEL);
      if (min) ctx.targetMinCli = min;
    }
    record(
      ctx,
      `resolved ${ctx.tag}: ${ctx.targets.map((t) => `${t.artifact} ${t.digest.slice(0, 19)}`).join(', ')}`,
    );
    io.progress(ctx.targets.map((t) => `${t.artifact} ${t.digest.slice(7, 19)}`).join(', '));
  },
};

/** A label of an image's config, read from the store (no engine, no pull); undefined for an index. */
async function readLabel(
  store: ImageStore,
  repository: string,
  digest: string,
  label: string,
): Promise<string | undefined> {
  const manifest = await store.getManifest(repository, digest);
  if (!manifest) return undefined;
  const parsed = JSON.parse(new TextDecoder().decode(manifest.bytes)) as { config?: { digest?: string } };
  if (!parsed.config?.digest) return undefined;
  const config = JSON.parse(
    new TextDecoder().decode(await store.getBlob(repository, parsed.config.digest)),
  ) as {
    config?: { Labels?: Record<string, string> };
  };
  return config.config?.Labels?.[label];
}
