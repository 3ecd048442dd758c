import type Docker from 'dockerode';
import { readTar } from '../../archives/tar-reader.ts';
import { ExternalError } from '../../errors.ts';
import { createLayerFromTar } from '../../oci-image/layer.ts';
import { putImage, type WrittenImage } from '../../oci-image/write-image.ts';
import type { ImageStore } from '../../registry/store.ts';

/**
 * Copy an image from the engine into a store (an OCI layout, where docker cannot push): read
 * `docker save`, gzip each layer with the fixed settings of our own layers, keep the config's
 * exact bytes (so its digest stays Docker's image ID), and write an OCI manifest under `tags`.
 */
export async function exportToStore(
  docker: Docker,
  name: string,
  target: { store: ImageStore; repository: string; tags: readonly string[]; byDigest?: boolean },
): Promise<WrittenImage> {
  let files: Map<string, Buffer>;
  try {
    files = await readSave((await docker.getImage(name).get()) as NodeJS.ReadableStream);
  } catch (error) {
    throw new ExternalError(
      'DOCKER_EXPORT_FAILED',
      `could not read ${name} from the Docker engine: ${(error as Error).message}`,
      {
        hint: 'check the engine is running and has the image (docker image ls)',
        cause: error,
      },
    );
  }
  const manifest = JSON.parse(files.get('manifest.json')?.toString('utf8') ?? '[]') as {
    Config: string;
    Layers: string[];
  }[];
  const entry = manifest[0];
  const config = entry && files.get(entry.Config);
  if (!entry || !config)
    throw new ExternalError('DOCKER_EXPORT_FAILED', `the engine's save of ${name} has no image in it`);
  const layers = [];
  for (const path of entry.Layers) {
    const raw = files.get(path);
    if (!raw)
      throw new ExternalError('DOCKER_EXPORT_FAILED', `the engine's save of ${name} lacks the layer ${path}`);
    layers.push(await createLayerFromTar(raw));
  }
  return putImage({ ...target, config, layers });
}

async function readSave(stream: NodeJS.ReadableStream): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for await (const entry of readTar(stream, { gzip: false }))
    if (entry.header.type === 'file') files.set(entry.header.name, await entry.bytes());
  return files;
}
