import { posix } from 'node:path';
import type { BaseImage } from '../../oci-image/base-image-reader.ts';
import type { ImageSpec } from '../../oci-image/image-config.ts';
import type { Layer } from '../../oci-image/layer.ts';
import { applyLayers, type LayerNode, readLayer } from '../../oci-image/read-layer.ts';

/** The paths of a base's layers, by its digest: a base is read once per run, however many images use it. */
const basePaths = new Map<string, Promise<LayerNode[][]>>();

/**
 * A warning when the program the image starts (the entrypoint's first word, else the command's)
 * is not in the image: `python` on the Node base builds fine and cannot start. A bare name is
 * looked up in the image's PATH, as the runtime does; a link counts as there (its target is the
 * runtime's business). Reads the layers' entry headers only, never their content.
 */
export async function entrypointWarnings(
  base: BaseImage,
  layers: readonly Layer[],
  spec: ImageSpec,
  artifact: string,
): Promise<string[]> {
  const program = (spec.entrypoint ??
    base.config.config?.Entrypoint ??
    spec.cmd ??
    base.config.config?.Cmd)?.[0];
  if (!program || program.startsWith('$')) return [];
  let lower = basePaths.get(base.digest);
  if (!lower) {
    lower = Promise.all(
      base.layers.map(async (l) =>
        readLayer(await base.store.getBlob(base.repository, l.digest), {
          what: base.name,
          keep: () => false,
        }),
      ),
    );
    basePaths.set(base.digest, lower);
  }
  const own = await Promise.all(layers.map((l) => readLayer(l.bytes, { what: artifact, keep: () => false })));
  const tree = applyLayers([...(await lower), ...own]);
  const env = [...(base.config.config?.Env ?? []), ...Object.entries(spec.env).map(([k, v]) => `${k}=${v}`)];
  const path = env.findLast((line) => line.startsWith('PATH='))?.slice(5) ?? '/usr/local/bin:/usr/bin:/bin';
  const candidates = program.includes('/')
    ? [posix.resolve(spec.workingDir ?? base.config.config?.WorkingDir ?? '/', program)]
    : path
        .split(':')
        .filter(Boolean)
        .map((dir) => posix.join(dir, program));
  if (candidates.some((c) => tree.has(c))) return [];
  return [
    `${artifact}: its entrypoint's program ${program} is not in the image (${program.includes('/') ? 'no such file' : `not on its PATH ${path}`}) on the base ${base.name}: it cannot start; use a base that has it, or add it in files`,
  ];
}
