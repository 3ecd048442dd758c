import type Docker from 'dockerode';
import { followProgress, progressError } from '../../docker-client/connect.ts';
import { ExternalError } from '../../errors.ts';
import type { BaseImage } from '../../oci-image/base-image-reader.ts';
import { type LayerEntry, packTar } from '../../oci-image/layer.ts';

/**
 * Make a base image from a store (layout or registry) available to the engine under `localName`,
 * without any registry between them: the image is handed to `POST /images/load` as a
 * `docker save` archive (manifest.json, config, layers; the engine unpacks gzip layers itself).
 * Skipped when the engine already has that name with the same image ID (the config digest).
 */
export async function loadBaseIntoDocker(
  docker: Docker,
  base: BaseImage,
  localName: string,
): Promise<'present' | 'loaded'> {
  const existing = await docker
    .getImage(localName)
    .inspect()
    .catch(() => undefined);
  if (existing?.Id === base.configDigest) return 'present';

  const hex = (digest: string) => digest.replace(/^sha256:/, '');
  const files: LayerEntry[] = [
    {
      type: 'file',
      path: `${hex(base.configDigest)}.json`,
      content: await base.store.getBlob(base.repository, base.configDigest),
    },
  ];
  for (const layer of base.layers) {
    files.push({
      type: 'file',
      path: `${hex(layer.digest)}/layer.tar`,
      content: await base.store.getBlob(base.repository, layer.digest),
    });
  }
  const manifest = [
    {
      Config: `${hex(base.configDigest)}.json`,
      RepoTags: [localName],
      Layers: base.layers.map((layer) => `${hex(layer.digest)}/layer.tar`),
    },
  ];
  files.push({ type: 'file', path: 'manifest.json', content: JSON.stringify(manifest) });

  const archive = await packTar(files, 0);
  try {
    const stream = await docker.loadImage(archive as unknown as NodeJS.ReadableStream);
    const error = progressError(await followProgress(stream));
    if (error) throw new Error(error);
  } catch (error) {
    throw new ExternalError(
      'DOCKER_LOAD_FAILED',
      `the Docker engine did not load the base image ${base.name}: ${(error as Error).message}`,
      {
        hint: "check the engine log; the base image must be a linux image for the engine's platform",
        cause: error,
      },
    );
  }
  return 'loaded';
}
