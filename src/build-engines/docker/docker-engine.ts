import type Docker from 'dockerode';
import { OCI_LAYOUT_PREFIX } from '../../config/constants.ts';
import { InternalError, UsageError } from '../../errors.ts';
import { openBaseImage } from '../../oci-image/base-image-reader.ts';
import { sha256 } from '../../oci-image/layer.ts';
import { formatImageRef } from '../../registry/image-ref.ts';
import { type Descriptor, type ImageStore, MEDIA_TYPES } from '../../registry/store.ts';
import type { BuiltImage, DockerRecipe, Engine, ImageBuildRequest, TimePart } from '../engine.ts';
import { runBuildKit } from './buildkit-build.ts';
import type { DockerBuilder } from './docker-builder.ts';
import { exportToStore } from './export-to-store.ts';
import { loadBaseIntoDocker } from './load-base.ts';
import { pushImage } from './push-image.ts';

/** The digest of no content: what an image `FROM scratch` starts from. */
const EMPTY_DIGEST = `sha256:${'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'}`;

/**
 * The Docker engine: the image is built with BuildKit through the docker CLI (`builder`: buildx, or
 * the CLI's own BuildKit) from a context we tar ourselves, with the artifact's target, build args,
 * secrets, cache and platforms, the five labels, and the version in its environment (the stamped
 * stage). The configured base is loaded into the engine only when the Dockerfile starts FROM
 * ${BASE_IMAGE}. `--push` pushes with the docker config's credentials (or copies the image into an
 * OCI layout); several platforms are built one by one, written by digest and joined in one index.
 */
export function createDockerEngine(options: {
  docker: Docker;
  builder: DockerBuilder;
  open: (registry: string) => ImageStore;
  env: Record<string, string | undefined>;
  epoch: number;
}): Engine {
  const { docker, builder } = options;
  let network: Promise<'host' | 'default'> | undefined;
  return {
    name: 'docker',
    async build(
      request: ImageBuildRequest,
      progress,
      time: TimePart = (_, work) => work(),
    ): Promise<BuiltImage> {
      const layout = request.registry.startsWith(OCI_LAYOUT_PREFIX);
      const recipe = request.docker;
      if (!recipe) throw new InternalError('NO_DOCKER_RECIPE', `no Dockerfile for ${request.artifact}`);
      const buildArgs = { ...recipe.buildArgs };
      let base: BuiltImage['base'] | undefined;
      if (recipe.usesBaseImage) {
        const ref = request.base;
        const { base: opened, close } = await openBaseImage(ref, options.open);
        // A base from a file has no repository: it is loaded under its digest.
        const baseName = ref.repository
          ? `release-base/${ref.repository}:${ref.reference.replace(/^sha256:/, '').slice(0, 64)}`
          : `release-base/file:${opened.digest.slice('sha256:'.length)}`;
        try {
          const loaded = await time('load base', () => loadBaseIntoDocker(docker, opened, baseName));
          progress(`base ${ref.text}: ${loaded} as ${baseName}`);
        } finally {
          await close();
        }
        buildArgs['BASE_IMAGE'] = baseName;
        base = { reference: ref.text, digest: opened.digest };
      }
      network ??= hasBridge(docker).then((bridge) => (bridge ? 'default' : 'host'));
      const buildNetwork = recipe.network ?? (await network);
      progress(
        `building with ${builder.description}, ${builder.cli}${buildNetwork === 'default' ? '' : `, network ${buildNetwork}`}`,
      );
      const name = layout
        ? `${request.repository}:${request.tag}`
        : formatImageRef(request.registry, request.repository, request.tag);
      const build = (tag: string | undefined, platform: string | undefined) =>
        time(platform ? `docker build ${platform}` : 'docker build', () =>
          runBuildKit(
            builder,
            {
              context: recipe.context,
              dockerfile: recipe.dockerfile,
              target: recipe.target,
              tag,
              buildArgs,
              labels: recipe.labels,
              platform,
              network: buildNetwork,
              secrets: recipe.secrets,
              cacheFrom: recipe.cache.from,
              cacheTo: recipe.cache.to,
              env: options.env,
            },
            (line) => progress(platform ? `${platform}: ${line}` : line),
          ),
        );
      const platforms = recipe.platforms ?? [];
      if (platforms.length > 1) return buildIndex(request, recipe, platforms, base);

      const imageId = await build(name, platforms[0]);
      const root = base ? { base } : await rootBaseOf(docker, recipe.rootBase);
      const built: BuiltImage = {
        artifact: request.artifact,
        engine: 'docker',
        reference: name,
        imageId,
        pushed: false,
        base: root.base,
        ...('layers' in root ? { baseLayers: root.layers } : {}),
      };
      if (!request.push) return built;
      if (layout) {
        // docker cannot push to a directory: copy the image out of the engine into the layout.
        progress(`writing ${name} to ${request.registry}`);
        const written = await time('write', () =>
          exportToStore(docker, name, {
            store: options.open(request.registry),
            repository: request.repository,
            tags: [request.tag],
          }),
        );
        const reference = formatImageRef(request.registry, request.repository, request.tag);
        return { ...built, reference, digest: written.digest, pushed: true };
      }
      progress(`pushing ${name}`);
      const digest = await time('push', () =>
        pushImage(docker, {
          registry: request.registry,
          repository: request.repository,
          tag: request.tag,
          env: options.env,
        }),
      );
      return { ...built, digest, pushed: true };

      /**
       * Several platforms: each built on its own (`--platform`, so TARGETARCH is set), copied out
       * of the engine into the store by digest, then one OCI index under the tag. Works with the
       * CLI's own BuildKit, which cannot build several platforms in one build.
       */
      async function buildIndex(
        req: ImageBuildRequest,
        rec: DockerRecipe,
        list: readonly string[],
        configured: BuiltImage['base'] | undefined,
      ): Promise<BuiltImage> {
        if (!req.push)
          throw new UsageError(
            'PLATFORMS_NEED_PUSH',
            `artifacts.${req.artifact}.platforms names ${list.length} platforms: their images are joined in one index, which only a store holds`,
            { hint: 'build with --push (the default registry is an OCI layout in the project)' },
          );
        const store = options.open(req.registry);
        const children: Descriptor[] = [];
        for (const platform of list) {
          const id = await build(undefined, platform);
          const written = await time(`write ${platform}`, () =>
            exportToStore(docker, id, { store, repository: req.repository, tags: [], byDigest: true }),
          );
          progress(`${platform}: ${written.digest}`);
          children.push({
            mediaType: written.mediaType,
            digest: written.digest,
            size: written.size,
            platform: platformOf(platform),
          });
        }
        const bytes = Buffer.from(
          JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPES.ociIndex, manifests: children }),
        );
        const digest = sha256(bytes);
        await time('write index', () =>
          store.putManifest(req.repository, req.tag, bytes, MEDIA_TYPES.ociIndex),
        );
        const root = configured ? { base: configured } : await rootBaseOf(docker, rec.rootBase);
        return {
          artifact: req.artifact,
          engine: 'docker',
          reference: formatImageRef(req.registry, req.repository, req.tag),
          digest,
          pushed: true,
          base: root.base,
          ...('layers' in root ? { baseLayers: root.layers } : {}),
        };
      }
    },
  };
}

/** `linux/arm64/v8` as an index's platform. */
export function platformOf(platform: string): NonNullable<Descriptor['platform']> {
  const [os = 'linux', architecture = 'amd64', variant] = platform.split('/');
  return { os, architecture, ...(variant ? { variant } : {}) };
}

/**
 * The base the Dockerfile's target starts from, as the engine has it: its name, its digest (the
 * registry digest it was pulled by, else its image ID) and its layer count, so the SBOM lists only
 * what the Dockerfile added. `scratch`: no layers.
 */
async function rootBaseOf(
  docker: Docker,
  root: string | undefined,
): Promise<{ base: BuiltImage['base']; layers: number }> {
  if (!root || root.toLowerCase() === 'scratch')
    return { base: { reference: 'scratch', digest: EMPTY_DIGEST }, layers: 0 };
  const info = await docker
    .getImage(root)
    .inspect()
    .catch(() => undefined);
  if (!info) return { base: { reference: root, digest: EMPTY_DIGEST }, layers: 0 };
  const pulled = info.RepoDigests?.[0]?.split('@')[1];
  return { base: { reference: root, digest: pulled ?? info.Id }, layers: info.RootFS?.Layers?.length ?? 0 };
}

/** Whether the engine has its default bridge network (a dockerd run with --bridge=none has not). */
async function hasBridge(docker: Docker): Promise<boolean> {
  try {
    const networks = await docker.listNetworks();
    return networks.some((n) => n.Name === 'bridge');
  } catch {
    return true;
  }
}
