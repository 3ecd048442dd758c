import { RuleError } from '../errors.ts';
import { RESTAMPED_FROM } from '../oci-image/version-layer.ts';
import { isDigest, isIndex, referencesOf } from '../registry/digest.ts';
import { MAX_MANIFEST_BYTES, parseJson, parseManifestBytes } from '../registry/oci-schema.ts';
import { platformChildren } from '../registry/platform-children.ts';
import type { ImageStore, Manifest } from '../registry/store.ts';
import { cosignTag } from '../signing/cosign-formats.ts';
import { checkCosignSignature } from '../signing/cosign-tags.ts';
import { type TrustedKeys, verifiedReferrers } from './accepted-referrers.ts';
import type { MirrorSet, SetImage, SetManifest } from './mirror-set.ts';

/** An image config is a small JSON document: the manifest limit serves it as well. */
const MAX_CONFIG_BYTES = MAX_MANIFEST_BYTES;

export interface SetSource {
  store: ImageStore;
  version: string;
  /** The configured images, each once: the artifact that builds it, its repository and every role that runs it. */
  artifacts: { name: string; repository: string; roles?: string[] }[];
  /** Referrers are carried only when one of the accepted kinds verifies them with these keys. */
  keys: TrustedKeys;
}

/**
 * Read the whole set from the source: each image at the tag with every child, every referrer of
 * each of those digests, and for a release made from an rc the rc images under their rc tag with
 * theirs. Only manifests are read here (small); blobs are listed with their sizes and copied later.
 */
export async function collectSet(source: SetSource): Promise<MirrorSet> {
  const set: MirrorSet = { version: source.version, images: [], manifests: [], blobs: [], dropped: [] };
  const seen = new Set<string>();
  const rcs: { artifact: string; repository: string; digest: string; roles?: string[] }[] = [];
  for (const artifact of source.artifacts) {
    const image = await addImage(source, set, seen, artifact.name, artifact.repository, source.version);
    if (artifact.roles && artifact.roles.length > 1) image.roles = artifact.roles;
    if (image.madeFrom)
      rcs.push({
        artifact: artifact.name,
        repository: artifact.repository,
        digest: image.madeFrom,
        ...(image.roles ? { roles: image.roles } : {}),
      });
  }
  for (const rc of rcs) {
    const tag = await rcTagOf(source.store, rc.repository, rc.digest, source.version);
    const image = await addImage(source, set, seen, rc.artifact, rc.repository, tag, rc.digest);
    if (rc.roles) image.roles = rc.roles;
  }
  return set;
}

async function addImage(
  source: SetSource,
  set: MirrorSet,
  seen: Set<string>,
  artifact: string,
  repository: string,
  tag: string,
  expected?: string,
): Promise<SetImage> {
  const { store } = source;
  const top = await store.getManifest(repository, expected ?? tag);
  if (!top)
    throw new RuleError('MIRROR_IMAGE_MISSING', `${store.name} has no ${repository}:${tag}`, {
      hint: 'mirror a version every configured image was released at (release promote first)',
    });
  const children: string[] = [];
  let madeFrom = madeFromOf(top);
  if (isIndex(top.descriptor.mediaType)) {
    // Platform images are signed one by one and named by the release set; the index's other
    // entries (buildx's provenance attestations, platform unknown/unknown) are carried as the
    // signed index names them, verified by their digests alone.
    const platforms = new Set((platformChildren(top.bytes) ?? []).map((c) => c.digest));
    for (const child of referencesOf(top.bytes, top.descriptor.mediaType).manifests) {
      const manifest = await store.getManifest(repository, child.digest);
      if (!manifest)
        throw new RuleError(
          'MIRROR_IMAGE_MISSING',
          `${store.name}: ${repository} lacks ${child.digest}, a child of ${tag}`,
        );
      addManifest(set, seen, repository, manifest, 'child');
      if (!platforms.has(child.digest)) continue;
      children.push(child.digest);
      await addReferrers(source, set, seen, repository, child.digest);
    }
    // A Docker manifest list carries no annotation: its rc is the rc index holding its first
    // child's rc (each child's config names the rc child it was re-stamped from).
    if (!madeFrom && !expected && children[0]) {
      const child = await store.getManifest(repository, children[0]);
      const rcChild = child ? await configLabel(store, repository, child) : undefined;
      if (rcChild) madeFrom = await rcIndexHolding(store, repository, rcChild, tag);
    }
  } else {
    madeFrom ??= await configLabel(store, repository, top);
  }
  addManifest(set, seen, repository, top, 'image');
  await addReferrers(source, set, seen, repository, top.descriptor.digest);
  const image: SetImage = {
    artifact,
    repository,
    tag,
    digest: top.descriptor.digest,
    children,
    ...(madeFrom && !expected ? { madeFrom } : {}),
  };
  set.images.push(image);
  return image;
}

/** Add a manifest and its blobs once; a manifest comes after everything it refers to. */
function addManifest(
  set: MirrorSet,
  seen: Set<string>,
  repository: string,
  manifest: Manifest,
  role: SetManifest['role'],
  subject?: string,
  tag?: string,
): void {
  const key = `${repository}@${manifest.descriptor.digest}`;
  if (seen.has(key)) return;
  seen.add(key);
  for (const blob of referencesOf(manifest.bytes, manifest.descriptor.mediaType).blobs) {
    const blobKey = `${repository}@${blob.digest}`;
    if (seen.has(blobKey)) continue;
    seen.add(blobKey);
    set.blobs.push({ repository, digest: blob.digest, size: blob.size });
  }
  set.manifests.push({
    repository,
    digest: manifest.descriptor.digest,
    mediaType: manifest.descriptor.mediaType,
    bytes: manifest.bytes,
    role,
    ...(subject ? { subject } : {}),
    ...(tag ? { tag } : {}),
  });
}

/** The referrers of `subject` an accepted kind verifies; the others are noted in `set.dropped`. */
async function addReferrers(
  source: SetSource,
  set: MirrorSet,
  seen: Set<string>,
  repository: string,
  subject: string,
): Promise<void> {
  const { kept, dropped } = await verifiedReferrers(source.store, source.keys, {
    repository,
    digest: subject,
  });
  set.dropped.push(...dropped);
  for (const referrer of kept) {
    const manifest = await source.store.getManifest(repository, referrer.digest);
    if (!manifest) continue; // listed in a stale fallback index but deleted: nothing to carry
    addManifest(set, seen, repository, manifest, 'referrer', subject);
  }
  await addCosignSignature(source, set, seen, repository, subject);
}

/**
 * The subject's cosign signature tag, carried unchanged when every signature in it verifies under
 * the release key; otherwise left behind with a notice, like a referrer. (Its `.att` is not
 * carried as bytes: the target's is written from the evidence bundles carried, the same
 * envelopes, so nothing unverified rides along.)
 */
async function addCosignSignature(
  source: SetSource,
  set: MirrorSet,
  seen: Set<string>,
  repository: string,
  subject: string,
): Promise<void> {
  if (await source.store.resolve(repository, cosignTag(subject, 'att'))) {
    set.cosignAttestations ??= [];
    set.cosignAttestations.push(`${repository}@${subject}`);
  }
  const tag = cosignTag(subject, 'sig');
  const manifest = await source.store.getManifest(repository, tag);
  if (!manifest) return;
  const check = await checkCosignSignature(
    source.store,
    source.keys.release,
    { repository, digest: subject },
    'every',
  );
  if (check.status !== 'valid') {
    set.dropped.push({
      repository,
      subject,
      digest: manifest.descriptor.digest,
      artifactType: `cosign signature (${tag})`,
      reason: check.reason,
    });
    return;
  }
  // Keyed by tag: two subjects' signature tags may hold the same bytes only if equal, harmlessly.
  addManifest(set, seen, repository, manifest, 'cosign', subject, tag);
}

/** The rc digest a release manifest names: its annotation (an index, or an OCI manifest). */
function madeFromOf(manifest: Manifest): string | undefined {
  const parsed = parseManifestBytes(manifest.bytes, manifest.descriptor.mediaType);
  const from = parsed.kind === 'invalid' ? undefined : parsed.value.annotations?.[RESTAMPED_FROM];
  if (from === undefined || isDigest(from)) return from;
  throw new RuleError(
    'MIRROR_CONTENT_INVALID',
    `${manifest.descriptor.digest} annotates ${RESTAMPED_FROM} with something that is not a digest`,
    { hint: 'the source holds an image that no build of this toolkit made; mirror from a trusted source' },
  );
}

/** A single image's rc digest as verify reads it: the config's label. */
async function configLabel(
  store: ImageStore,
  repository: string,
  manifest: Manifest,
): Promise<string | undefined> {
  const parsed = parseManifestBytes(manifest.bytes, manifest.descriptor.mediaType);
  const config = parsed.kind === 'image' ? parsed.value.config : undefined;
  if (!config) return undefined;
  const refused = (why: string) =>
    new RuleError(
      'MIRROR_CONTENT_INVALID',
      `${store.name}: the config ${config.digest} of ${repository}@${manifest.descriptor.digest} ${why}`,
      {
        hint: 'the source holds an image that no build of this toolkit made; mirror from a trusted source',
      },
    );
  if (config.size > MAX_CONFIG_BYTES)
    throw refused(`is ${config.size} bytes, over the ${MAX_CONFIG_BYTES}-byte limit`);
  const json = parseJson(await store.getBlob(repository, config.digest, MAX_CONFIG_BYTES));
  if (json === undefined) throw refused('is not JSON');
  const label = (json as { config?: { Labels?: Record<string, unknown> } } | null)?.config?.Labels?.[
    RESTAMPED_FROM
  ];
  if (label === undefined) return undefined;
  if (typeof label !== 'string' || !isDigest(label))
    throw refused(`labels ${RESTAMPED_FROM} with something that is not a digest`);
  return label;
}

async function rcIndexHolding(
  store: ImageStore,
  repository: string,
  child: string,
  version: string,
): Promise<string | undefined> {
  for (const tag of await rcTags(store, repository, version)) {
    const index = await store.getManifest(repository, tag);
    if (
      index &&
      isIndex(index.descriptor.mediaType) &&
      referencesOf(index.bytes, index.descriptor.mediaType).manifests.some((m) => m.digest === child)
    )
      return index.descriptor.digest;
  }
  return undefined;
}

async function rcTags(store: ImageStore, repository: string, version: string): Promise<string[]> {
  return (await store.listTags(repository))
    .filter((t) => t.startsWith(`${version}-rc.`))
    .sort()
    .reverse();
}

/**
 * The tag the rc is known by: an rc of this version (`v3.1.0-rc.N`) pointing at the digest. The
 * far side then proves "the release is the signed rc re-stamped" as verify does at home.
 */
async function rcTagOf(
  store: ImageStore,
  repository: string,
  digest: string,
  version: string,
): Promise<string> {
  for (const tag of await rcTags(store, repository, version))
    if ((await store.resolve(repository, tag))?.digest === digest) return tag;
  throw new RuleError(
    'MIRROR_RC_MISSING',
    `${store.name}: no ${version}-rc.N tag of ${repository} points at ${digest}, the rc ${version} was made from`,
    {
      hint: 'the rc the release was made from must be in the source with its rc tag',
    },
  );
}
