import { OCI_LAYOUT_PREFIX } from '../../config/schema.ts';
import { InternalError } from '../../errors.ts';
import { formatImageRef } from '../../registry/image-ref.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { BuiltImage, Engine, ImageBuildRequest } from '../engine.ts';
import { readBaseImage } from './base-image-reader.ts';
import { createLayer } from './layer.ts';
import { buildOnBase } from './write-image.ts';

/** Where the oci engine writes when the registry is remote and `--push` was not given. */
export const LOCAL_LAYOUT = `${OCI_LAYOUT_PREFIX}.release/oci`;

/**
 * The daemonless engine: the recipe's deterministic layers (its files; the CLI archive on its own
 * for the api) on top of the base, the config written by us, straight into a store. It has no local image cache, so an image always
 * lands in a store: the configured registry when it is a layout or `--push` is given, else the
 * local layout `.release/oci`. The digest is the same wherever it lands.
 */
export function createOciEngine(options: { open: (registry: string) => ImageStore; epoch: number }): Engine {
  return {
    name: 'oci',
    async build(request: ImageBuildRequest, progress): Promise<BuiltImage> {
      const { base: ref } = request;
      progress(`reading base ${ref.text}`);
      const base = await readBaseImage(options.open(ref.store), ref.repository, ref.reference, ref.text);
      const recipe = request.oci;
      if (!recipe) throw new InternalError('NO_OCI_RECIPE', `no daemonless recipe for ${request.artifact}`);
      const layers = [];
      for (const entries of recipe.layers) {
        progress(`packing ${entries.length} entries`);
        layers.push(await createLayer(entries, options.epoch));
      }
      const pushed = request.push || request.registry.startsWith(OCI_LAYOUT_PREFIX);
      const registry = pushed ? request.registry : LOCAL_LAYOUT;
      progress(`writing ${request.repository}:${request.tag} to ${registry}`);
      const written = await buildOnBase({
        store: options.open(registry),
        repository: request.repository,
        tags: [request.tag],
        base,
        layers,
        spec: recipe.spec,
      });
      return {
        artifact: request.artifact,
        engine: 'oci',
        reference: formatImageRef(registry, request.repository, request.tag),
        digest: written.digest,
        pushed,
        base: { reference: ref.text, digest: base.digest },
      };
    },
  };
}
