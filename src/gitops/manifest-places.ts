import { commandWords } from '../text/command-words.ts';
import type { ManifestFile, Place, ReleaseTarget, Unplaced } from './gitops-types.ts';
import { parseImageRef, releaseImageOf } from './image-ref.ts';
import { getAt, isMap, mappings, type Path, scalarText } from './tree.ts';
import { wantedDigest, wantedReference } from './wanted-value.ts';

export interface Findings {
  places: Place[];
  unplaced: Unplaced[];
}

/** `kustomization.yaml` `images:`: `newTag` (and `digest`) of each entry naming a release image. */
export function kustomizationPlaces(file: ManifestFile, tree: unknown, target: ReleaseTarget): Findings {
  const out: Findings = { places: [], unplaced: [] };
  const images = getAt(tree, ['images']);
  if (!Array.isArray(images)) return out;
  for (const [i, entry] of images.entries()) {
    if (!isMap(entry)) continue;
    const name = scalarText(entry['newName']) ?? scalarText(entry['name']);
    const image = name ? releaseImageOf(name, target.images) : undefined;
    if (!image) continue;
    const current = scalarText(entry['newTag']);
    const base = { file: file.path, doc: 0, artifacts: [...image.artifacts] };
    out.places.push({ ...base, path: ['images', i, 'newTag'], kind: 'new-tag', current, want: target.tag });
    const had = scalarText(entry['digest']) ?? undefined;
    const digest = wantedDigest(had, image, target);
    if ('unplaced' in digest)
      out.unplaced.push({ artifacts: image.artifacts, reason: digest.unplaced, file: file.path });
    else if (digest.digest)
      out.places.push({
        ...base,
        path: ['images', i, 'digest'],
        kind: 'digest',
        current: had ?? null,
        want: digest.digest,
      });
  }
  return out;
}

/** Every container (and init container) of every workload in a plain manifest: its `image:`. */
export function kubernetesPlaces(
  file: ManifestFile,
  doc: number,
  tree: unknown,
  target: ReleaseTarget,
): Findings {
  const out: Findings = { places: [], unplaced: [] };
  for (const [path, map] of mappings(tree)) {
    for (const key of ['containers', 'initContainers', 'ephemeralContainers']) {
      const list = map[key];
      if (!Array.isArray(list)) continue;
      list.forEach((container, i) => {
        if (isMap(container))
          reference(out, file, doc, [...path, key, i, 'image'], container['image'], target, [
            ...words(container['command']),
            ...words(container['args']),
          ]);
      });
    }
  }
  return out;
}

/** A Compose file's `services.<name>.image`, and `x-…` extension fields services take by alias. */
export function composePlaces(file: ManifestFile, tree: unknown, target: ReleaseTarget): Findings {
  const out: Findings = { places: [], unplaced: [] };
  for (const [key, value] of isMap(tree) ? Object.entries(tree) : []) {
    if (key.startsWith('x-') && isMap(value)) reference(out, file, 0, [key, 'image'], value['image'], target);
    if (key !== 'services' || !isMap(value)) continue;
    for (const [name, service] of Object.entries(value))
      if (isMap(service))
        reference(out, file, 0, ['services', name, 'image'], service['image'], target, [
          ...words(service['entrypoint']),
          ...words(service['command']),
        ]);
  }
  return out;
}

/**
 * The `.env` beside a Compose file: every variable whose value is a reference to a release image
 * (getsentry/self-hosted keeps them all there: `image: "$SNUBA_IMAGE"` in the compose file, and
 * `SENTRY_IMAGE` as a build argument of a local image).
 */
export function dotenvPlaces(
  file: ManifestFile,
  vars: Record<string, string>,
  target: ReleaseTarget,
): Findings {
  const out: Findings = { places: [], unplaced: [] };
  for (const [name, value] of Object.entries(vars)) reference(out, file, 0, [name], value, target);
  return out;
}

/** A whole image reference at `path` (`repo:tag[@digest]`), when it names a release image. */
export function reference(
  out: Findings,
  file: ManifestFile,
  doc: number,
  path: Path,
  value: unknown,
  target: ReleaseTarget,
  argv?: string[],
) {
  const current = scalarText(value);
  if (current === null) return;
  // Compose's `${API_IMAGE:-ghcr.io/acme/api:v1}`: the default is the reference, the rest is kept.
  const braced = /^(\$\{[A-Za-z_][A-Za-z0-9_]*:?-)(.*)\}$/.exec(current);
  const reference = braced ? braced[2]! : current;
  const image = releaseImageOf(parseImageRef(reference).repository, target.images);
  if (!image) return;
  const inner = wantedReference(reference, image, target);
  const wanted = braced && 'value' in inner ? { value: `${braced[1]}${inner.value}}` } : inner;
  if ('unplaced' in wanted)
    out.unplaced.push({ artifacts: image.artifacts, reason: wanted.unplaced, file: file.path });
  else
    out.places.push({
      file: file.path,
      doc,
      path,
      kind: 'reference',
      artifacts: [...image.artifacts],
      ...(argv ? { argv } : {}),
      current,
      want: wanted.value,
    });
}

/**
 * The version variables' values anywhere in a document: `{name: SERVICE_VERSION, value: …}` in an
 * env list (Kubernetes, chart values), `SERVICE_VERSION: …` in a map (Compose `environment:`, a
 * chart's `extraEnv`), `SERVICE_VERSION=…` in a Compose environment list.
 */
export function envPlaces(file: ManifestFile, doc: number, tree: unknown, target: ReleaseTarget): Place[] {
  const names = new Set(target.versionVariables);
  const out: Place[] = [];
  const base = { file: file.path, doc, kind: 'env' as const, artifacts: [], want: target.tag };
  for (const [path, map] of mappings(tree)) {
    const name = scalarText(map['name']);
    if (name && names.has(name) && 'value' in map)
      out.push({ ...base, path: [...path, 'value'], current: scalarText(map['value']) });
    for (const [key, value] of Object.entries(map))
      if (names.has(key) && (value === null || typeof value !== 'object'))
        out.push({ ...base, path: [...path, key], current: scalarText(value) });
    for (const [key, value] of Object.entries(map)) {
      if (!Array.isArray(value)) continue;
      value.forEach((item, i) => {
        const m = typeof item === 'string' ? /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(item) : null;
        if (m && names.has(m[1]!))
          out.push({ ...base, path: [...path, key, i], current: item, want: `${m[1]}=${target.tag}` });
      });
    }
  }
  return out;
}

/** A container's or service's command as words: a list as it is, a string split as Compose splits it. */
function words(value: unknown): string[] {
  return Array.isArray(value) || typeof value === 'string' ? commandWords(value) : [];
}
