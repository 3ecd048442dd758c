import { RESTAMPED_FROM } from '../../engine/oci/version-layer.ts';
import { matchPlatforms, type PlatformChild, platformChildren } from '../../registry/platform-children.ts';
import type { ImageStore, Manifest } from '../../registry/store.ts';
import { releaseArchiveSignatures } from '../../restamp/release-archive-signatures.ts';
import { printable } from '../../shared/printable.ts';
import type { PublicSigningKey } from '../../signing/keys.ts';
import type { ArtifactName, PlatformProvenance, ProvenanceReading } from '../types.ts';
import { madeFromOf, manifestProvenance, type ProvenanceSource, readImage } from './image-provenance.ts';

/** Read one image's provenance from the store. Never throws: an unreadable store gives `error`. */
export async function probeProvenance(
  store: ImageStore,
  trusted: PublicSigningKey | undefined,
  subject: { artifact: ArtifactName; repository: string; tag: string },
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
 * A multi-platform index: the index as a whole (the rc index its annotation names, re-stamped,
 * must give it byte for byte; both signed), then each platform child as an image of its own (a
 * node runs the child, so its version, code layers and signatures are what matter), and the
 * platforms the rc has that the release lacks.
 */
async function indexProvenance(
  source: ProvenanceSource,
  release: Manifest,
  children: PlatformChild[],
): Promise<Omit<ProvenanceReading, 'artifact' | 'repository' | 'tag'>> {
  const { store, repository } = source;
  const annotations = (
    JSON.parse(Buffer.from(release.bytes).toString('utf8')) as {
      annotations?: Record<string, string>;
    }
  ).annotations;
  const indexFrom = annotations?.[RESTAMPED_FROM];
  const index = await manifestProvenance(source, release, indexFrom);
  const rcIndex = indexFrom && !index.rcMissing ? await store.getManifest(repository, indexFrom) : undefined;
  const rcChildren = rcIndex ? platformChildren(rcIndex.bytes) : undefined;
  const match = rcChildren ? matchPlatforms(rcChildren, children) : undefined;
  const platforms: PlatformProvenance[] = [];
  for (const child of children) {
    const manifest = await store.getManifest(repository, child.digest);
    if (!manifest)
      throw new Error(`${repository}@${child.digest} (${child.platform}, in ${source.tag}) is missing`);
    const view = await readImage(store, repository, manifest);
    const from = view ? madeFromOf(view) : undefined;
    const reading = await manifestProvenance(source, manifest, from, view);
    const rcChild = match?.pairs.find((p) => p.platform === child.platform)?.rc;
    platforms.push({
      ...reading,
      platform: child.platform,
      digest: child.digest,
      ...(from && rcChild !== undefined && rcChild !== from ? { notInRc: true } : {}),
    });
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
