import { builderOf, builtImageArtifacts, imageArtifact } from '../config/artifacts.ts';
import type { ImageArtifactConfig } from '../config/artifacts-schema.ts';
import type { ReleaseConfig } from '../config/schema.ts';
import { UsageError } from '../errors.ts';
import { parseBaseImageRef } from '../registry/image-ref.ts';
import { printable } from '../text/printable.ts';
import type { AdoptSource } from './adopt-sources.ts';

/** An adopted image, placed: the artifact that builds it and the source it came from. */
export interface AdoptedArtifact {
  artifact: ImageArtifactConfig;
  source: AdoptSource;
  /** How it was matched, for the output: `api=` given, its image name, or its bake target's name. */
  matchedBy: 'artifact' | 'image name' | 'bake target';
  /** Set when a role's name was given (`scheduler=`): the image is its builder's. */
  roleGiven?: string;
}

type Config = Pick<ReleaseConfig, 'artifacts' | 'registry'>;

/**
 * Which artifact each image handed over is. `<artifact>=` says it outright (a role run from
 * another artifact's image adopts that image); else one of the names it was pushed under is the
 * artifact's repository in the config's registry (`<registry>/<image>`, names compared as Docker
 * resolves them: `acme/api` is `docker.io/acme/api`); else, for a bake target pushed under no
 * name, the target's name is the artifact's. An image matching no artifact, one named as another
 * artifact's repository, or two digests for one artifact is refused (exit 2): adopting it would
 * promote what nobody asked for. Pure.
 */
export function mapAdopted(config: Config, sources: readonly AdoptSource[]): AdoptedArtifact[] {
  const images = builtImageArtifacts(config);
  const repositoryOf = (a: ImageArtifactConfig) => normalised(`${config.registry}/${a.image}`);
  const byRepository = new Map(images.map((a) => [repositoryOf(a), a]));
  const out = new Map<string, AdoptedArtifact>();
  for (const source of sources) {
    const what = describe(source);
    const names = source.image.names.map(normalised);
    let placed: AdoptedArtifact;
    if (source.artifact) {
      const given = imageArtifact(config, source.artifact);
      if (!given)
        throw new UsageError(
          'ADOPT_NO_ARTIFACT',
          `${what}: the config has no image artifact "${source.artifact}"`,
          { hint: `image artifacts of the config: ${images.map((a) => a.name).join(', ') || 'none'}` },
        );
      const artifact = builderOf(config, given);
      // One push may name several registries (GHCR and a Docker Hub mirror): one of them must be the config's.
      const known = names.filter(Boolean);
      const other = known.length && !known.includes(repositoryOf(artifact)) ? known[0] : undefined;
      if (other !== undefined)
        throw new UsageError(
          'ADOPT_NAME_MISMATCH',
          `${what}: given as ${source.artifact}, but pushed to ${other}, not ${repositoryOf(artifact)}`,
          {
            hint: `push ${artifact.name}'s image to ${repositoryOf(artifact)} (registry and artifacts.${artifact.name}.image in the config)`,
          },
        );
      placed = {
        artifact,
        source,
        matchedBy: 'artifact',
        ...(artifact !== given ? { roleGiven: given.name } : {}),
      };
    } else {
      const artifact = names.map((name) => byRepository.get(name)).find(Boolean);
      const byTarget =
        !artifact && names.length === 0 && source.image.target
          ? images.find((a) => a.name === source.image.target)
          : undefined;
      if (!artifact && !byTarget)
        throw new UsageError(
          'ADOPT_NO_ARTIFACT',
          `${what} matches no artifact of the config: ${names.length ? `pushed to ${names.join(', ')}` : 'pushed under no name'}`,
          {
            hint: `the config's images are ${[...byRepository.keys()].join(', ') || 'none'}; push to one of them, or say which artifact it is: <artifact>=${source.origin.file ?? '<reference>'}`,
          },
        );
      placed = {
        artifact: (artifact ?? byTarget)!,
        source,
        matchedBy: artifact ? 'image name' : 'bake target',
      };
    }
    const before = out.get(placed.artifact.name);
    if (before && before.source.image.digest !== source.image.digest)
      throw new UsageError(
        'ADOPT_TWICE',
        `${placed.artifact.name} is given twice: ${describe(before.source)} and ${what}`,
        { hint: 'hand over one digest per artifact (the index of a multi-platform build)' },
      );
    if (!before) out.set(placed.artifact.name, placed);
  }
  return images.flatMap((a) => out.get(a.name) ?? []);
}

/** `metadata.json (target api): sha256:…` or the reference given. */
export function describe(source: AdoptSource): string {
  const { origin, image } = source;
  if (origin.kind === 'reference') return printable(image.names[0] ?? image.digest);
  const target = image.target ? ` (target ${printable(image.target, { max: 80 })})` : '';
  return `${printable(origin.file ?? '')}${target}: ${image.digest}`;
}

/** `host/repository` as Docker resolves a name (tag and digest dropped); '' when it is none. */
function normalised(name: string): string {
  try {
    const ref = parseBaseImageRef(name);
    return `${ref.store}/${ref.repository}`;
  } catch {
    return '';
  }
}
