import { OCI_LAYOUT_PREFIX } from '../../config/constants.ts';
import { InternalError } from '../../errors.ts';
import { type BaseImage, openBaseImage } from '../../oci-image/base-image-reader.ts';
import { createLayer, type Layer, type LayerEntry } from '../../oci-image/layer.ts';
import {
  splitVersionFiles,
  VERSION_LAYER_DIGEST_LABEL,
  VERSION_LAYER_FILES_LABEL,
} from '../../oci-image/version-layer.ts';
import { buildOnBase } from '../../oci-image/write-image.ts';
import { formatImageRef } from '../../registry/image-ref.ts';
import type { ImageStore } from '../../registry/store.ts';
import type { BuiltImage, Engine, ImageBuildRequest, OciRecipe, TimePart } from '../engine.ts';
import { entrypointWarnings } from './entrypoint-check.ts';

/** Where the oci engine writes when the registry is remote and `--push` was not given. */
export const LOCAL_LAYOUT = `${OCI_LAYOUT_PREFIX}.release/oci`;

/**
 * The daemonless engine: the recipe's deterministic layers (its files; the CLI archive on its own
 * for the api) on top of the base, the config written by us, straight into a store. It has no local image cache, so an image always
 * lands in a store: the configured registry when it is a layout or `--push` is given, else the
 * local layout `.release/oci`. The digest is the same wherever it lands.
 */
export function createOciEngine(options: { open: (registry: string) => ImageStore; epoch: number }): Engine {
  // The repositories written so far, per store: a later image mounts the shared base layers from them.
  const written = new Map<string, string[]>();
  return {
    name: 'oci',
    async build(
      request: ImageBuildRequest,
      progress,
      time: TimePart = (_, work) => work(),
    ): Promise<BuiltImage> {
      const { base: ref } = request;
      progress(`reading base ${ref.text}`);
      const { base, close } = await time('read base', () => openBaseImage(ref, options.open));
      try {
        return await buildOn(base, request, progress, time);
      } finally {
        await close();
      }
    },
  };

  async function buildOn(
    base: BaseImage,
    request: ImageBuildRequest,
    progress: (line: string) => void,
    time: TimePart,
  ): Promise<BuiltImage> {
    const ref = request.base;
    const recipe = request.oci;
    if (!recipe) throw new InternalError('NO_OCI_RECIPE', `no daemonless recipe for ${request.artifact}`);
    const { layers: lists, spec } = withVersionLayer(recipe);
    const layers: Layer[] = [];
    for (const entries of lists) {
      progress(`packing ${entries.length} entries`);
      layers.push(await time('layers', () => createLayer(entries, options.epoch)));
    }
    if (spec.versionFiles?.length) {
      // Marked so `release promote --channel release` can find it and replace only it.
      spec.labels = {
        ...spec.labels,
        [VERSION_LAYER_FILES_LABEL]: spec.versionFiles.join(','),
        [VERSION_LAYER_DIGEST_LABEL]: layers.at(-1)!.digest,
      };
    }
    const pushed = request.push || request.registry.startsWith(OCI_LAYOUT_PREFIX);
    const registry = pushed ? request.registry : LOCAL_LAYOUT;
    progress(`writing ${request.repository}:${request.tag} to ${registry}`);
    const repositories = written.get(registry) ?? [];
    const image = await time('write', () =>
      buildOnBase({
        store: options.open(registry),
        repository: request.repository,
        tags: [request.tag],
        base,
        layers,
        spec,
        mountFrom: repositories,
      }),
    );
    written.set(registry, [...repositories, request.repository]);
    return {
      artifact: request.artifact,
      engine: 'oci',
      reference: formatImageRef(registry, request.repository, request.tag),
      digest: image.digest,
      pushed,
      base: { reference: ref.text, digest: base.digest },
      warnings: await entrypointWarnings(base, layers, spec, request.artifact),
    };
  }
}

/**
 * The recipe with the files that carry the version (`spec.versionFiles`) moved out of their layers
 * into one last layer of their own, the version layer a full release re-stamps; a layer left empty
 * is dropped. Without version files the recipe is unchanged.
 */
function withVersionLayer(recipe: OciRecipe): OciRecipe {
  const files = recipe.spec.versionFiles ?? [];
  if (files.length === 0) return recipe;
  const version: LayerEntry[] = [];
  const layers: LayerEntry[][] = [];
  const history: string[] = [];
  const createdBy = recipe.spec.createdBy;
  recipe.layers.forEach((entries, i) => {
    const split = splitVersionFiles(
      entries,
      files.filter((f) => entries.some((e) => e.path === f)),
    );
    version.push(...split.version);
    if (split.code.some((e) => e.type !== 'dir')) {
      layers.push(split.code);
      history.push(typeof createdBy === 'string' ? createdBy : (createdBy[i] ?? createdBy[0] ?? ''));
    }
  });
  const missing = files.filter((f) => !version.some((e) => e.path === f));
  if (missing.length)
    throw new InternalError('VERSION_FILES_MISSING', `version files not in the image: ${missing.join(', ')}`);
  history.push(`${history[0] ?? 'release build'} [version layer]`);
  return { layers: [...layers, version], spec: { ...recipe.spec, createdBy: history } };
}
