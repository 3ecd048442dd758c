import type Docker from 'dockerode';
import { OCI_LAYOUT_PREFIX } from '../../config/constants.ts';
import { followProgress, type ProgressLine, progressError } from '../../docker-client/connect.ts';
import { ExternalError, InternalError } from '../../errors.ts';
import { openBaseImage } from '../../oci-image/base-image-reader.ts';
import { formatImageRef } from '../../registry/image-ref.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { BuiltImage, Engine, ImageBuildRequest, TimePart } from '../engine.ts';
import { exportToStore } from './export-to-store.ts';
import { loadBaseIntoDocker } from './load-base.ts';
import { pushImage } from './push-image.ts';

/**
 * The Docker engine: the base is loaded into the engine from its store, the image is built from
 * artifact's Dockerfile with build args and the five labels, on a context we tar ourselves, and `--push` pushes it with the docker config's credentials (or, for an
 * OCI layout registry, copies it out of the engine into the layout).
 */
export function createDockerEngine(options: {
  docker: Docker;
  open: (registry: string) => ImageStore;
  env: Record<string, string | undefined>;
  epoch: number;
}): Engine {
  const { docker } = options;
  return {
    name: 'docker',
    async build(
      request: ImageBuildRequest,
      progress,
      time: TimePart = (_, work) => work(),
    ): Promise<BuiltImage> {
      const layout = request.registry.startsWith(OCI_LAYOUT_PREFIX);
      const ref = request.base;
      const { base, close } = await openBaseImage(ref, options.open);
      // A base from a file has no repository: it is loaded under its digest.
      const baseName = ref.repository
        ? `release-base/${ref.repository}:${ref.reference.replace(/^sha256:/, '').slice(0, 64)}`
        : `release-base/file:${base.digest.slice('sha256:'.length)}`;
      try {
        const loaded = await time('load base', () => loadBaseIntoDocker(docker, base, baseName));
        progress(`base ${ref.text}: ${loaded} as ${baseName}`);
      } finally {
        await close();
      }

      const name = layout
        ? `${request.repository}:${request.tag}`
        : formatImageRef(request.registry, request.repository, request.tag);
      const recipe = request.docker;
      if (!recipe) throw new InternalError('NO_DOCKER_RECIPE', `no Dockerfile for ${request.artifact}`);
      const lines = await time('docker build', () =>
        buildWithDocker(
          docker,
          recipe.context,
          {
            t: name,
            dockerfile: recipe.dockerfile,
            ...(recipe.target ? { target: recipe.target } : {}),
            labels: recipe.labels,
            buildargs: { BASE_IMAGE: baseName, ...recipe.buildArgs },
            rm: true,
            forcerm: true,
            pull: false,
          },
          progress,
        ),
      );
      const imageId =
        lines.find((line) => line.aux?.ID)?.aux?.ID ?? (await docker.getImage(name).inspect()).Id;
      const built: BuiltImage = {
        artifact: request.artifact,
        engine: 'docker',
        reference: name,
        imageId,
        pushed: false,
        base: { reference: ref.text, digest: base.digest },
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
    },
  };
}

async function buildWithDocker(
  docker: Docker,
  context: Buffer,
  options: Record<string, unknown>,
  progress: (line: string) => void,
): Promise<ProgressLine[]> {
  let lines: ProgressLine[];
  try {
    const stream = await docker.buildImage(context as unknown as NodeJS.ReadableStream, options);
    lines = await followProgress(stream, (line) => {
      const text = line.stream?.trim();
      if (text) progress(text);
    });
  } catch (error) {
    throw new ExternalError(
      'DOCKER_BUILD_FAILED',
      `the Docker engine could not build ${String(options['t'])}: ${(error as Error).message}`,
      {
        hint: 'check that the engine is running and has disk space (docker info)',
        cause: error,
      },
    );
  }
  const failed = progressError(lines);
  if (failed) {
    const log = lines
      .map((line) => line.stream ?? '')
      .join('')
      .trim()
      .split('\n')
      .slice(-8)
      .join('\n');
    throw new ExternalError(
      'DOCKER_BUILD_FAILED',
      `the Docker build of ${String(options['t'])} failed: ${failed}\n${log}`,
      {
        hint: 'the lines above are the end of the build output; check the base image (artifacts.<name>.base) has node at /usr/local/bin/node',
      },
    );
  }
  return lines;
}
