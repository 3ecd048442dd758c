import { runsCommand } from '../text/command-words.ts';
import { spellLike } from '../version/image-tag.ts';
import type { BumpPlan, ManifestFile, Place, ReleaseImage, ReleaseTarget, Unplaced } from './gitops-types.ts';
import {
  composePlaces,
  dotenvPlaces,
  envPlaces,
  kubernetesPlaces,
  kustomizationPlaces,
} from './manifest-places.ts';
import { getAt, scalarText } from './tree.ts';
import { valuesPlaces } from './values-places.ts';
import { wantedTag } from './wanted-value.ts';

/** A deployment file with its YAML documents as plain trees. */
export interface ParsedManifest extends ManifestFile {
  docs: unknown[];
}

/**
 * Where the release goes in a set of deployment files, and what changes: a pure function of the
 * files and the release, shared by `release bump` (which writes `edits`) and `release verify
 * --manifests` (for which every edit is drift). Every image of the release must have a place, or
 * it is `unplaced` and bump writes nothing.
 */
export function planBump(files: ParsedManifest[], target: ReleaseTarget): BumpPlan {
  const places: Place[] = [];
  const unplaced: Unplaced[] = [];
  const covered = new Set<ReleaseImage>();
  for (const file of files) {
    const take = (found: { places: Place[]; unplaced: Unplaced[] }) => {
      places.push(...found.places);
      unplaced.push(...found.unplaced);
    };
    if (file.kind === 'values') {
      const found = valuesPlaces(file, file.docs[0], target);
      take(found);
      if (found.found.length > 0) {
        const chart = files.find((f) => f.kind === 'chart' && f.path === file.chart);
        if (chart) {
          places.push(appVersion(chart, found.viaAppVersion, target));
          for (const image of found.viaAppVersion) covered.add(image);
        } else if (found.viaAppVersion.length > 0) {
          unplaced.push(
            ...found.viaAppVersion.map((i) => ({
              artifacts: i.artifacts,
              file: file.path,
              reason: `its tag is empty (the chart's appVersion) and no Chart.yaml was found beside ${file.path}`,
            })),
          );
        }
      }
    }
    if (file.kind === 'kustomization') take(kustomizationPlaces(file, file.docs[0], target));
    if (file.kind === 'compose') take(composePlaces(file, file.docs[0], target));
    if (file.kind === 'dotenv') take(dotenvPlaces(file, file.docs[0] as Record<string, string>, target));
    file.docs.forEach((tree, doc) => {
      if (file.kind === 'kubernetes') take(kubernetesPlaces(file, doc, tree, target));
      places.push(...envPlaces(file, doc, tree, target));
    });
    take(declaredPlaces(file, target));
  }
  const unique = dedupe(withoutKustomizePlaceholders(files, places));
  // A file holding the release with a key twice is ambiguous (which of the two does the tool
  // read?): a second `image:` added after a bump would run another image than the one we see.
  // Files that hold nothing of the release (a subchart's values) are the chart's business.
  const holding = new Set(unique.map((p) => p.file));
  const duplicates = files
    .filter((f) => holding.has(f.path))
    .flatMap((f) => (f.duplicateKeys ?? []).map((d) => ({ file: f.path, key: d.key, line: d.line })));
  for (const place of unique)
    for (const image of target.images)
      if (place.kind !== 'env' && image.artifacts.some((a) => place.artifacts.includes(a)))
        covered.add(image);
  for (const image of target.images) {
    if (covered.has(image) || unplaced.some((u) => u.artifacts.some((a) => image.artifacts.includes(a))))
      continue;
    unplaced.push({
      artifacts: image.artifacts,
      reason: `no deployment file names the image ${image.image} (declare its key under deploy.manifests)`,
    });
  }
  unplaced.push(...rolesWithoutContainer(unique, target));
  const kept = unique.map((place) => keepOwnSpelling(place, target));
  return { places: kept, edits: kept.filter((p) => p.current !== p.want), unplaced, duplicates };
}

/**
 * In a kustomize tree the overlay's `images:` decide the tag, and the base's `image:` is a
 * placeholder the overlay replaces: the base is left as it is for every image an overlay names.
 */
function withoutKustomizePlaceholders(files: ParsedManifest[], places: Place[]): Place[] {
  const kustomizations = files.filter((f) => f.kind === 'kustomization');
  const dirs = new Set(kustomizations.map((f) => dirOf(f.path)));
  const named = new Set(places.filter((p) => p.kind === 'new-tag').flatMap((p) => p.artifacts));
  return places.filter(
    (p) => !(p.kind === 'reference' && dirs.has(dirOf(p.file)) && p.artifacts.some((a) => named.has(a))),
  );
}

function appVersion(chart: ParsedManifest, via: ReleaseImage[], target: ReleaseTarget): Place {
  return {
    file: chart.path,
    doc: 0,
    path: ['appVersion'],
    kind: 'app-version',
    artifacts: via.flatMap((i) => i.artifacts),
    current: scalarText(getAt(chart.docs[0], ['appVersion'])),
    want: target.tag,
    ...(via.length ? { note: 'the tag of images whose values leave it empty' } : {}),
  };
}

/** Keys the config declares for a file (`global.acmeVersion: version`, `server.image.tag: api`). */
function declaredPlaces(
  file: ParsedManifest,
  target: ReleaseTarget,
): { places: Place[]; unplaced: Unplaced[] } {
  const out = { places: [] as Place[], unplaced: [] as Unplaced[] };
  for (const [key, what] of Object.entries(file.declared ?? {})) {
    const path = key.split('.');
    const value = getAt(file.docs[0], path);
    const image = target.images.find((i) => i.artifacts.includes(what));
    if (value === undefined || (what !== 'version' && !image)) {
      out.unplaced.push({
        artifacts: what === 'version' ? [] : [what],
        file: file.path,
        reason:
          value === undefined
            ? `the declared key ${key} is not in ${file.path}`
            : `${key} is declared for ${what}, which is not an image of the release`,
      });
      continue;
    }
    const current = scalarText(value);
    const wanted = image ? wantedTag(current, image, target) : { value: target.tag };
    if ('unplaced' in wanted) {
      out.unplaced.push({ artifacts: [what], file: file.path, reason: wanted.unplaced });
      continue;
    }
    out.places.push({
      file: file.path,
      doc: 0,
      path,
      kind: image ? 'tag' : 'override',
      artifacts: image ? [...image.artifacts] : [],
      current,
      want: wanted.value,
      note: 'declared in deploy.manifests',
    });
  }
  return out;
}

/**
 * A version variable, or an appVersion no image takes its tag from, is a version, not a tag: `1.4.0`
 * is `v1.4.0` (DESIGN.md, version rules), and the file's spelling is kept. Every other place names
 * an image tag, which must be the pushed tag exactly.
 */
function keepOwnSpelling(place: Place, target: ReleaseTarget): Place {
  const version = place.kind === 'env' || (place.kind === 'app-version' && place.artifacts.length === 0);
  if (!version && target.spelling === 'as-deployed') return spelledAsDeployed(place, target.tag);
  if (!version || place.current === null) return place;
  const bare = (v: string) => v.replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=)?v?/, '');
  if (bare(place.current) === bare(place.want)) return { ...place, want: place.current };
  // A chart's own appVersion written without `v` (mattermost's `11.6.1`) stays without it.
  if (place.kind === 'app-version' && !place.current.startsWith('v') && /^v\d/.test(place.want))
    return { ...place, want: place.want.slice(1) };
  return place;
}

/**
 * An image place given a release no record spells: the tag takes the `v` or not as the place's
 * current tag has it (`acme:2026.6.0` -> `acme:2026.7.0`, `tag: v1.3.0` -> `tag: v1.4.0`).
 */
function spelledAsDeployed(place: Place, tag: string): Place {
  const current =
    place.current === null ? undefined : /(?:^|[:=])(v?)\d+\.\d+\.\d+[^@\s]*(?:@|$)/.exec(place.current);
  if (!current) return place;
  const spelled = spellLike(tag, current[1] ? 'v0.0.0' : '0.0.0');
  const at = place.want.lastIndexOf(tag);
  if (spelled === tag || at < 0) return place;
  return { ...place, want: `${place.want.slice(0, at)}${spelled}${place.want.slice(at + tag.length)}` };
}

/**
 * Roles of one image told apart by their command (`artifacts.<name>.command`): where every place of the
 * image is a container or Compose service, so its command is in the files, each role must have
 * one that runs its command (`runsCommand`: a run of consecutive words of entrypoint, command and
 * args, through `sh -c`, `tini --` or `dumb-init`, as verify reads a running container);
 * otherwise the role's deployment is not in these files and the release would leave it behind.
 * A chart or kustomization keeps commands in templates or bases: not checked there.
 */
function rolesWithoutContainer(places: Place[], target: ReleaseTarget): Unplaced[] {
  const out: Unplaced[] = [];
  for (const image of target.images) {
    const mine = places.filter((p) => p.kind !== 'env' && p.artifacts.includes(image.artifacts[0]!));
    if (mine.length === 0 || mine.some((p) => p.argv === undefined)) continue;
    for (const [artifact, command] of Object.entries(image.commands ?? {})) {
      if (mine.some((p) => runsCommand(p.argv!, command))) continue;
      out.push({
        artifacts: [artifact],
        reason: `no container or service of ${image.image} runs its command "${command.join(' ')}"`,
      });
    }
  }
  return out;
}

function dirOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf('/')));
}

/** One place per file, document and key; the artifacts of duplicates merged. */
function dedupe(places: Place[]): Place[] {
  const byKey = new Map<string, Place>();
  for (const place of places) {
    const key = JSON.stringify([place.file, place.doc, place.path]);
    const seen = byKey.get(key);
    if (!seen) byKey.set(key, { ...place, artifacts: [...place.artifacts] });
    else for (const a of place.artifacts) if (!seen.artifacts.includes(a)) seen.artifacts.push(a);
  }
  return [...byKey.values()];
}
