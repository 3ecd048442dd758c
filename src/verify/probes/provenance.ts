import { RESTAMPED_FROM } from '../../oci-image/version-layer.ts';
import { matchPlatforms, type PlatformChild, platformChildren } from '../../registry/platform-children.ts';
import type { ImageStore, Manifest } from '../../registry/store.ts';
import type { LayerScanCache } from '../../restamp/layer-scan-cache.ts';
import { releaseArchiveSignatures } from '../../restamp/release-archive-signatures.ts';
import type { PublicSigningKey } from '../../signing/keys.ts';
import { printable } from '../../text/printable.ts';
import { imageTagOf } from '../../version/image-tag.ts';
import { parseVersion } from '../../version/parse.ts';
import type { PlatformProvenance, ProvenanceReading } from '../types.ts';
import { madeFromOf, manifestProvenance, type ProvenanceSource, readImage } from './image-provenance.ts';

/** Read one image's provenance from the store. Never throws: an unreadable store gives `error`. */
export async function probeProvenance(
  store: ImageStore,
  trusted: PublicSigningKey | undefined,
  subject: { artifact: string; repository: string; tag: string },
  options: { layerScans?: LayerScanCache | undefined } = {},
): Promise<ProvenanceReading> {
  const { repository, tag } = subject;
  const reading: ProvenanceReading = { ...subject, digest: undefined };
  try {
    const release = await store.getManifest(repository, tag);
    // Not in the store: nothing to trace (the registry step says when a running image's tag is missing).
    if (!release) return { ...reading, missing: true };
    let carried: Promise<Map<string, string>> | undefined;
    const source: ProvenanceSource = {
      store,
      trusted,
      repository,
      tag,
      // Only a release made from an rc needs them: most images never pay for the version layer read.
      carried: () => (carried ??= releaseArchiveSignatures(store, repository, release)),
      layerScans: options.layerScans,
    };
    const children = platformChildren(release.bytes);
    if (children) return { ...reading, ...(await indexProvenance(source, release, children)) };
    const view = await readImage(store, repository, release);
    return {
      ...reading,
      ...(await manifestProvenance(source, release, view ? madeFromOf(view) : undefined, view)),
    };
  } catch (error) {
    return { ...reading, error: printable((error as Error).message, { max: 300 }) };
  }
}

/**
 * A multi-platform index: each platform child as an image of its own (a node runs the child, so
 * its version, code layers and signatures are what matter), then the index as a whole (the rc
 * index, re-stamped, must give it byte for byte; both signed), and the platforms the rc has that
 * the release lacks.
 */
async function indexProvenance(
  source: ProvenanceSource,
  release: Manifest,
  children: PlatformChild[],
): Promise<Omit<ProvenanceReading, 'artifact' | 'repository' | 'tag'>> {
  const { store, repository } = source;
  const platforms: PlatformProvenance[] = [];
  for (const child of children) {
    const manifest = await store.getManifest(repository, child.digest);
    if (!manifest)
      throw new Error(`${repository}@${child.digest} (${child.platform}, in ${source.tag}) is missing`);
    const view = await readImage(store, repository, manifest);
    const reading = await manifestProvenance(source, manifest, view ? madeFromOf(view) : undefined, view);
    platforms.push({ ...reading, platform: child.platform, digest: child.digest });
  }
  const rcIndex = await rcIndexOf(store, repository, release, platforms);
  const index = await manifestProvenance(
    source,
    release,
    rcIndex?.descriptor.digest ?? annotatedFrom(release),
  );
  const match = rcIndex ? matchPlatforms(platformChildren(rcIndex.bytes) ?? [], children) : undefined;
  for (const p of platforms) {
    const rcChild = match?.pairs.find((pair) => pair.platform === p.platform)?.rc;
    if (p.madeFrom && rcChild !== undefined && rcChild !== p.madeFrom) p.notInRc = true;
  }
  const versions = new Set(platforms.map((p) => p.imageVersion));
  const rcVersions = new Set(platforms.map((p) => p.rcVersion));
  return {
    ...index,
    ...(versions.size === 1 && platforms[0]?.imageVersion ? { imageVersion: platforms[0].imageVersion } : {}),
    ...(rcVersions.size === 1 && platforms[0]?.rcVersion ? { rcVersion: platforms[0].rcVersion } : {}),
    platforms,
    ...(match?.missing.length ? { missingPlatforms: match.missing } : {}),
    ...(match?.extra.length ? { extraPlatforms: match.extra } : {}),
  };
}

/** The rc index an OCI release index names in its annotation. */
function annotatedFrom(release: Manifest): string | undefined {
  const json = JSON.parse(Buffer.from(release.bytes).toString('utf8')) as {
    annotations?: Record<string, string>;
  };
  return json.annotations?.[RESTAMPED_FROM];
}

/**
 * The rc index the release index was made from: the one its annotation names; else (a Docker
 * manifest list has no annotations) the index at the rc's tag, when it holds every rc image the
 * release children name, so a moved rc tag is never taken for the release's rc.
 */
async function rcIndexOf(
  store: ImageStore,
  repository: string,
  release: Manifest,
  platforms: PlatformProvenance[],
): Promise<Manifest | undefined> {
  const named = annotatedFrom(release);
  if (named) return store.getManifest(repository, named);
  const from = platforms.map((p) => p.madeFrom);
  const rcVersion = platforms[0]?.rcVersion;
  if (!rcVersion || from.some((d) => d === undefined)) return undefined;
  const version = parseVersion(rcVersion);
  if (version.kind !== 'rc') return undefined;
  const candidate = await store.getManifest(repository, imageTagOf(version));
  const rcChildren = candidate ? platformChildren(candidate.bytes) : undefined;
  if (!rcChildren || !from.every((d) => rcChildren.some((c) => c.digest === d))) return undefined;
  return candidate;
}
