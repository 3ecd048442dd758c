import { compareVersions } from '../version/compare.ts';
import { parseVersion } from '../version/parse.ts';
import type { DroppedReferrer } from './accepted-referrers.ts';

/**
 * What one `release mirror` carries, and the pure decisions about it: the order tags are written
 * in, whether `latest` may move, and whether a signed release set names exactly what is loaded.
 */

/** A manifest of the set, with its exact bytes (digests are over them). */
export interface SetManifest {
  repository: string;
  digest: string;
  mediaType: string;
  bytes: Uint8Array;
  /**
   * What the manifest is, for messages and the --json output. `cosign`: a subject's cosign
   * signature tag (`sha256-<hex>.sig`), written under that tag after the referrers.
   */
  role: 'image' | 'child' | 'referrer' | 'cosign';
  /** A referrer or a cosign tag: the digest it refers to. */
  subject?: string;
  /** A cosign signature tag: the tag it is written under. */
  tag?: string;
}

/** One image artifact at one tag: its index (or manifest) digest and its children. */
export interface SetImage {
  artifact: string;
  repository: string;
  tag: string;
  digest: string;
  children: string[];
  /** One image run in several roles (api, worker, scheduler): every artifact that runs it, the builder first. */
  roles?: string[];
  /** The rc digest this release image was re-stamped from (from its rc label or annotation). */
  madeFrom?: string;
}

/** How an image's roles read in mirror's output: `run as api, worker, scheduler` (one image, copied once). */
export function runAs(image: Pick<SetImage, 'roles'>): string {
  return `run as ${(image.roles ?? []).join(', ')}`;
}

export interface MirrorSet {
  version: string;
  /** The release images, then (a release made from an rc) the rc images under the rc tag. */
  images: SetImage[];
  /** Every manifest: images, children, referrers; each after everything it depends on. */
  manifests: SetManifest[];
  /** Every blob by repository (config, layers, referrer layers), with its size. */
  blobs: { repository: string; digest: string; size: number }[];
  /** Referrers of the set's images that no accepted kind verified: not carried. */
  dropped: DroppedReferrer[];
  /**
   * `repository@digest` of each subject whose source has a cosign `.att` tag: the target's is
   * written from the evidence bundles carried (the same DSSE envelopes), not copied.
   */
  cosignAttestations?: string[];
}

export interface TagWrite {
  repository: string;
  tag: string;
  digest: string;
}

/** Bytes the set moves: every blob and manifest once per repository. */
export function setSize(set: MirrorSet): number {
  return (
    set.blobs.reduce((sum, b) => sum + b.size, 0) + set.manifests.reduce((sum, m) => sum + m.bytes.length, 0)
  );
}

/**
 * The tags to write, in order: version tags (the rc's, then the release's, so a reader who sees
 * the release tag finds its rc already there), then `latest` last and only when asked for and
 * allowed. Referrer fallback tags (`sha256-<hex>`) are written with the manifests, not here. Pure.
 */
export function tagWrites(set: MirrorSet, latest: boolean): TagWrite[] {
  const rcFirst = [...set.images].sort(
    (a, b) => Number(a.tag === set.version) - Number(b.tag === set.version),
  );
  const writes = rcFirst.map((i) => ({ repository: i.repository, tag: i.tag, digest: i.digest }));
  if (latest)
    for (const i of set.images.filter((i) => i.tag === set.version))
      writes.push({ repository: i.repository, tag: 'latest', digest: i.digest });
  return writes;
}

/**
 * Whether `version` may take `latest` in a target holding `targetTags` (every tag of every
 * image): only a stable release that no stable version present outranks, as promote decides.
 * A string says why not. Pure.
 */
export function latestRefusal(version: string, targetTags: readonly string[]): string | undefined {
  const mine = parseVersion(version);
  if (mine.kind !== 'release' || mine.dirty) return `${version} is not a stable release`;
  for (const tag of targetTags) {
    const other = parseVersion(tag);
    if (other.kind !== 'release' || other.dirty) continue;
    if (compareVersions(other, mine) > 0) return `${tag} in the target is higher than ${version}`;
  }
  return undefined;
}

/** What a signed release set says about one artifact. */
export interface ClaimedArtifact {
  repository: string;
  digest: string;
  children?: string[];
}

/**
 * Why a release set's artifacts are not exactly the images being loaded for its tag (an image
 * missing, one more, another digest or other children); undefined when they are. Pure.
 */
export function releaseSetMismatch(
  claimed: Record<string, ClaimedArtifact>,
  loading: readonly SetImage[],
): string | undefined {
  const problems: string[] = [];
  const byRepo = new Map(loading.map((i) => [i.repository, i]));
  const named = new Set<string>();
  for (const [artifact, claim] of Object.entries(claimed)) {
    named.add(claim.repository);
    const image = byRepo.get(claim.repository);
    if (!image) {
      problems.push(
        `${artifact} (${claim.repository}@${claim.digest}) is in the release set but not being loaded`,
      );
      continue;
    }
    if (image.digest !== claim.digest)
      problems.push(`${claim.repository} is ${image.digest}, the release set names ${claim.digest}`);
    const want = [...(claim.children ?? [])].sort().join(',');
    if ([...image.children].sort().join(',') !== want)
      problems.push(`${claim.repository}: its platform images are not the ones the release set names`);
  }
  for (const image of loading)
    if (!named.has(image.repository))
      problems.push(`${image.repository}@${image.digest} is not in the release set`);
  return problems.length ? problems.join('; ') : undefined;
}
