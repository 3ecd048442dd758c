import { readArtifactDockerfile } from '../../build/artifact-dockerfile.ts';
import { buildEpoch } from '../../build/image-specs.ts';
import { makeBaseImage } from '../../build-engines/base-image.ts';
import type { ImageArtifactConfig } from '../../config/artifacts-schema.ts';
import { OCI_LAYOUT_PREFIX } from '../../config/constants.ts';
import { ExternalError } from '../../errors.ts';
import { userCacheDir } from '../../files/user-cache-dir.ts';
import type { Step } from '../../pipeline/step.ts';
import { ARCHIVE_PREFIXES, parseBaseImageRef } from '../../registry/image-ref.ts';
import { type BuildContext, imagesToBuild } from './build-context.ts';

const CACHE_SAYS = {
  hit: ', its layer from the cache',
  made: ', its layer kept in the cache',
  remade: ', its cached layer was damaged and is made again',
  off: '',
} as const;

/**
 * The configured base is the daemonless recipe's, and a Dockerfile's only when it starts a stage
 * FROM ${BASE_IMAGE}: a Dockerfile naming its own bases never gets ours made or loaded.
 */
function needsConfiguredBase(ctx: BuildContext, artifact: ImageArtifactConfig): boolean {
  if (ctx.engine?.name !== 'docker') return true;
  const dockerfile = readArtifactDockerfile(ctx.configDir, artifact, {}, []);
  return dockerfile === undefined || dockerfile.findings.usesBaseImage;
}

/**
 * Every base image must exist before any image is built. A missing base in an OCI layout is made
 * here from this machine's node (what `release base-image` does), so the default works on a fresh
 * checkout with nothing to pull; a missing base in a registry is an error.
 */
export const buildBaseImagesStep: Step<BuildContext> = {
  title: 'Check the base images',
  writes: true,
  skip: (ctx) => (imagesToBuild(ctx).length === 0 ? 'no image to build (--only)' : false),
  async run(ctx, io) {
    const refs = new Map(
      imagesToBuild(ctx)
        .filter((artifact) => needsConfiguredBase(ctx, artifact))
        .map((artifact) => [artifact.base, parseBaseImageRef(artifact.base)]),
    );
    if (refs.size === 0)
      io.progress('no image starts from a configured base (their Dockerfiles name their own)');
    for (const [text, ref] of refs) {
      // A file is read when the image is built (oci-image/archive-store.ts).
      if (ARCHIVE_PREFIXES.some((prefix) => ref.store.startsWith(prefix))) {
        io.progress(`${text}: read from its file at build`);
        continue;
      }
      const store = ctx.open(ref.store);
      let found: unknown;
      try {
        found = await ctx.timer.time(text, 'check', () => store.resolve(ref.repository, ref.reference));
      } catch (error) {
        throw new ExternalError(
          'BASE_IMAGE_UNREADABLE',
          `cannot read the base image ${text}: ${(error as Error).message}`,
          {
            hint: 'check that the registry is reachable and the login may pull, or set artifacts.<name>.base',
            cause: error,
          },
        );
      }
      if (found) {
        io.progress(`${text}: present`);
        continue;
      }
      if (!ref.store.startsWith(OCI_LAYOUT_PREFIX) || ref.reference.startsWith('sha256:')) {
        throw new ExternalError('BASE_IMAGE_MISSING', `the base image ${text} does not exist`, {
          hint: 'push a base with node at /usr/local/bin/node there (`release base-image --ref <ref>` makes one), or set artifacts.<name>.base',
        });
      }
      io.progress(`${text}: making it from this machine's node`);
      const made = await ctx.timer.time(text, "make from this machine's node", () =>
        makeBaseImage({
          store,
          repository: ref.repository,
          tags: [ref.reference],
          epoch: buildEpoch(ctx.env, null),
          cacheDir: userCacheDir(ctx.env),
        }),
      );
      ctx.warnings.push(
        `base image ${text} did not exist: made it from this machine's node ${made.nodeVersion} (${made.digest}${CACHE_SAYS[made.cache]})`,
      );
    }
  },
};
