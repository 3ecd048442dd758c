import type { ManifestFile, Place, ReleaseImage, ReleaseTarget, Unplaced } from './gitops-types.ts';
import { releaseImageOf } from './image-ref.ts';
import { reference } from './manifest-places.ts';
import { templateDefaults } from './template-defaults.ts';
import { getAt, isMap, mappings, type Path, scalarText } from './tree.ts';
import { wantedDigest, wantedTag } from './wanted-value.ts';

/** What a Helm values file holds of the release. */
export interface ValuesFindings {
  places: Place[];
  unplaced: Unplaced[];
  /** Images whose tag resolves to the chart's `appVersion` (nothing in the values sets it). */
  viaAppVersion: ReleaseImage[];
  /** Every release image this file deploys. */
  found: ReleaseImage[];
}

// Keys under `global` ending in Version that are not an app's version.
const NOT_APP_VERSION = new Set(['apiVersion', 'kubeVersion']);

/**
 * The places of a values file. An image block is a mapping with a `repository` (plus `registry`),
 * an `…image` mapping with a `tag`, or a path the templates default (sentry). Its tag is the first
 * non-empty one along its chain: itself, then the `image` blocks of its ancestors (langfuse's
 * `langfuse.web.image` -> `langfuse.image`, the `worker.image` -> `image` chain), then
 * `global.image` (authentik), then the chart's appVersion. A `global.<app>Version` that is set
 * overrides every component's tag, so it is written too.
 */
export function valuesPlaces(file: ManifestFile, tree: unknown, target: ReleaseTarget): ValuesFindings {
  const out: ValuesFindings = { places: [], unplaced: [], viaAppVersion: [], found: [] };
  const defaults = templateDefaults(file.templates ?? '');
  const blocks = new Map<string, Path>();
  for (const [path, map] of mappings(tree)) {
    const last = String(path.at(-1) ?? '');
    if ('repository' in map || ('tag' in map && /image/i.test(last))) blocks.set(path.join('.'), path);
  }
  for (const key of [...defaults.repositories.keys(), ...defaults.appVersionTags])
    if (!blocks.has(key)) blocks.set(key, key.split('.'));

  const placed = new Map<string, Place>();
  for (const path of blocks.values()) {
    const chain = [path, ...parentBlocks(path, blocks)];
    // Its own repository, else what its templates default to, else an ancestor's (authentik).
    const repo =
      repositoryOf(tree, path) ??
      defaults.repositories.get(path.join('.')) ??
      chain.map((p) => repositoryOf(tree, p)).find((r) => r !== null);
    const image = repo ? releaseImageOf(repo, target.images) : undefined;
    if (!image) continue;
    if (!out.found.includes(image)) out.found.push(image);
    const owner = chain.find((p) => scalarText(getAt(tree, [...p, 'tag'])) !== null);
    if (!owner) {
      if (!out.viaAppVersion.includes(image)) out.viaAppVersion.push(image);
      if (target.pinDigest) pinViaAppVersion(out, file, tree, chain, image, target);
      continue;
    }
    addTag(out, placed, file, tree, owner, image, target);
  }
  // A whole reference in one value (`image: ghcr.io/acme/api:v1`, `extraContainers[].image`).
  for (const [path, map] of mappings(tree)) {
    if (typeof map['image'] !== 'string') continue;
    const before = out.places.length;
    reference(out, file, 0, [...path, 'image'], map['image'], target);
    for (const place of out.places.slice(before))
      for (const image of target.images)
        if (place.artifacts.includes(image.artifacts[0]!) && !out.found.includes(image))
          out.found.push(image);
  }
  if (out.found.length > 0) out.places.push(...overrides(file, tree, out.found, target));
  return out;
}

function addTag(
  out: ValuesFindings,
  placed: Map<string, Place>,
  file: ManifestFile,
  tree: unknown,
  owner: Path,
  image: ReleaseImage,
  target: ReleaseTarget,
): void {
  const key = owner.join('.');
  const seen = placed.get(key);
  // One tag shared by several blocks (a chain's root): one place naming every artifact.
  if (seen) {
    for (const a of image.artifacts) if (!seen.artifacts.includes(a)) seen.artifacts.push(a);
    return;
  }
  const current = scalarText(getAt(tree, [...owner, 'tag']));
  // A `digest` key beside the tag (authentik) holds the pin instead of `tag@digest`.
  const digestKey = isMap(getAt(tree, owner)) && 'digest' in (getAt(tree, owner) as object);
  const wanted = digestKey ? { value: target.tag } : wantedTag(current, image, target);
  if ('unplaced' in wanted) {
    out.unplaced.push({ artifacts: image.artifacts, reason: wanted.unplaced, file: file.path });
    return;
  }
  const place: Place = {
    file: file.path,
    doc: 0,
    path: [...owner, 'tag'],
    kind: 'tag',
    artifacts: [...image.artifacts],
    current,
    want: wanted.value,
  };
  placed.set(key, place);
  out.places.push(place);
  if (!digestKey) return;
  const had = scalarText(getAt(tree, [...owner, 'digest'])) ?? undefined;
  const digest = wantedDigest(had, image, target);
  if ('unplaced' in digest)
    out.unplaced.push({ artifacts: image.artifacts, reason: digest.unplaced, file: file.path });
  else if (digest.digest)
    out.places.push({
      ...place,
      path: [...owner, 'digest'],
      kind: 'digest',
      current: had ?? null,
      want: digest.digest,
    });
}

/**
 * `--pin-digest` for an image whose tag is the chart's appVersion: a `digest` key along its chain
 * (authentik's `global.image.digest`), else its own empty `tag` becomes `tag@digest`.
 */
function pinViaAppVersion(
  out: ValuesFindings,
  file: ManifestFile,
  tree: unknown,
  chain: Path[],
  image: ReleaseImage,
  target: ReleaseTarget,
): void {
  // Like a tag: the first digest set along the chain, else the most shared key (its root), so
  // authentik's server and worker both take global.image.digest.
  const keys = chain.filter((p) => {
    const block = getAt(tree, p);
    return isMap(block) && 'digest' in block;
  });
  const holder = keys.find((p) => scalarText(getAt(tree, [...p, 'digest'])) !== null) ?? keys.at(-1);
  const base = { file: file.path, doc: 0, artifacts: [...image.artifacts] };
  if (holder && image.digest) {
    const current = scalarText(getAt(tree, [...holder, 'digest']));
    out.places.push({ ...base, path: [...holder, 'digest'], kind: 'digest', current, want: image.digest });
    return;
  }
  const own = getAt(tree, chain[0]!);
  const wanted = wantedTag(null, image, target);
  if (isMap(own) && 'tag' in own && 'value' in wanted) {
    out.places.push({ ...base, path: [...chain[0]!, 'tag'], kind: 'tag', current: null, want: wanted.value });
    return;
  }
  out.unplaced.push({
    artifacts: image.artifacts,
    file: file.path,
    reason: 'unplaced' in wanted ? wanted.unplaced : `no tag or digest key to pin ${image.image} in`,
  });
}

/** The `image` blocks a block inherits from, nearest first, then `global.image`. */
function parentBlocks(path: Path, blocks: Map<string, Path>): Path[] {
  const out: Path[] = [];
  for (let k = path.length - 2; k >= 0; k--) {
    const candidate = [...path.slice(0, k), 'image'];
    if (candidate.join('.') !== path.join('.') && blocks.has(candidate.join('.'))) out.push(candidate);
  }
  if (path.join('.') !== 'global.image' && blocks.has('global.image')) out.push(['global', 'image']);
  return out;
}

function repositoryOf(tree: unknown, block: Path): string | null {
  const repository = scalarText(getAt(tree, [...block, 'repository']));
  if (repository === null) return null;
  const registry = scalarText(getAt(tree, [...block, 'registry']));
  return registry ? `${registry}/${repository}` : repository;
}

/** `global.<app>Version` keys that are set: each overrides the tags of the images found. */
function overrides(file: ManifestFile, tree: unknown, found: ReleaseImage[], target: ReleaseTarget): Place[] {
  const global = getAt(tree, ['global']);
  if (!isMap(global)) return [];
  return Object.keys(global)
    .filter((k) => /^[a-z][A-Za-z0-9]*Version$/.test(k) && !NOT_APP_VERSION.has(k))
    .filter((k) => scalarText(global[k]) !== null)
    .map((k) => ({
      file: file.path,
      doc: 0,
      path: ['global', k],
      kind: 'override' as const,
      artifacts: found.flatMap((i) => i.artifacts),
      current: scalarText(global[k]),
      want: target.tag,
      note: 'set, it overrides every component tag',
    }));
}
