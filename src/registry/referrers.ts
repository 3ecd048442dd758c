import { ExternalError } from '../errors.ts';
import { referencesOf, sha256Digest } from './digest.ts';
import { parseIndexJson, parseJson } from './oci-schema.ts';
import { type Descriptor, type ImageStore, MEDIA_TYPES } from './store.ts';

/**
 * OCI 1.1 referrers over any ImageStore: an artifact manifest whose `subject` is the image it
 * describes (a signature, here), found through the registry's referrers API when the store offers
 * it, and always through the referrers tag schema (`sha256-<hex>` -> an index listing the
 * referrers), which every registry and the OCI layout can hold. The apt `docker-registry`
 * (distribution 2.8) has no referrers API, so the tag is what makes signatures findable there.
 */

/** The OCI empty descriptor: the config of an artifact that has no config. */
export const EMPTY_CONFIG = {
  bytes: Buffer.from('{}'),
  descriptor: {
    mediaType: MEDIA_TYPES.ociEmpty,
    digest: 'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
    size: 2,
    data: 'e30=',
  },
} as const;

/**
 * The artifact type of every Sigstore-bundle referrer (signatures and evidence alike): what
 * cosign v3, Kyverno's SigstoreBundle verifier and Ratify look for. The kind is told apart by the
 * predicate type annotation, as `cosign attest --new-bundle-format` writes it.
 */
export const BUNDLE_ARTIFACT_TYPE = 'application/vnd.dev.sigstore.bundle.v0.3+json';
export const BUNDLE_PREDICATE_ANNOTATION = 'dev.sigstore.bundle.predicateType';

/** The fallback tag for a subject digest: `sha256:<hex>` -> `sha256-<hex>`. */
export function referrersTag(subjectDigest: string): string {
  return subjectDigest.replace(':', '-');
}

export interface ArtifactToAttach {
  artifactType: string;
  /** The one layer: media type and content (a Sigstore bundle, for signatures). */
  layer: { mediaType: string; bytes: Uint8Array };
  /**
   * Also embed the layer in its descriptor (`data`, OCI 1.1) so a reader of the manifest needs no
   * blob request. The blob is pushed all the same, for tools that only read blobs.
   */
  embed?: boolean;
  annotations?: Record<string, string>;
}

/** The bytes of an OCI 1.1 artifact manifest for `subject` (config = the empty descriptor). */
export function artifactManifest(subject: Descriptor, artifact: ArtifactToAttach): Uint8Array {
  const manifest = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.ociManifest,
    artifactType: artifact.artifactType,
    config: EMPTY_CONFIG.descriptor,
    layers: [
      {
        mediaType: artifact.layer.mediaType,
        digest: sha256Digest(artifact.layer.bytes),
        size: artifact.layer.bytes.length,
        ...(artifact.embed ? { data: Buffer.from(artifact.layer.bytes).toString('base64') } : {}),
      },
    ],
    subject: { mediaType: subject.mediaType, digest: subject.digest, size: subject.size },
    ...(artifact.annotations ? { annotations: artifact.annotations } : {}),
  };
  return Buffer.from(JSON.stringify(manifest));
}

/**
 * Push an artifact that refers to `subject`: its blobs, then the manifest by digest (never a
 * tag), then add it to the fallback index. The index update is read-modify-write; two writers at
 * the same moment could drop one entry, which a re-run of `release sign` restores.
 */
export async function attachArtifact(
  store: ImageStore,
  repository: string,
  subject: Descriptor,
  artifact: ArtifactToAttach,
): Promise<Descriptor> {
  await putBlobOnce(store, repository, EMPTY_CONFIG.descriptor.digest, EMPTY_CONFIG.bytes);
  await putBlobOnce(store, repository, sha256Digest(artifact.layer.bytes), artifact.layer.bytes);
  const bytes = artifactManifest(subject, artifact);
  const stored = await store.putManifest(repository, sha256Digest(bytes), bytes, MEDIA_TYPES.ociManifest);
  const descriptor: Descriptor = {
    mediaType: MEDIA_TYPES.ociManifest,
    digest: stored.digest,
    size: bytes.length,
    artifactType: artifact.artifactType,
    ...(artifact.annotations ? { annotations: artifact.annotations } : {}),
  };
  await updateFallbackIndex(store, repository, subject.digest, { add: [descriptor] });
  return descriptor;
}

/**
 * Every referrer of `subjectDigest`, optionally of one artifact type: through the store's
 * `referrers()` when it has one (a registry's API, else the tag schema), else the fallback tag.
 */
export async function listReferrers(
  store: ImageStore,
  repository: string,
  subjectDigest: string,
  artifactType?: string,
): Promise<Descriptor[]> {
  const found = store.referrers
    ? await store.referrers(repository, subjectDigest)
    : await fallbackReferrers(store, repository, subjectDigest);
  return found.filter(
    (d) => typeof d?.digest === 'string' && (!artifactType || d.artifactType === artifactType),
  );
}

/** What a bundle referrer is: its predicate type, and the artifact type releases were written under before. */
export interface BundleKind {
  predicateType: string;
  /** Releases made before every bundle carried the bundle artifact type listed their evidence under this. */
  formerArtifactType?: string;
  /** Also a bundle that names no predicate type (checked as this kind, so a bad one is named). */
  unannotated?: boolean;
}

/**
 * The Sigstore-bundle referrers of `subjectDigest` of one kind: typed as a bundle and annotated
 * with the kind's predicate type, or listed under the kind's former artifact type (still read).
 * A registry whose referrers API drops annotations has the manifest's own read instead.
 */
export async function listBundleReferrers(
  store: ImageStore,
  repository: string,
  subjectDigest: string,
  kind: BundleKind,
): Promise<Descriptor[]> {
  const listed = await listReferrers(store, repository, subjectDigest);
  const found: Descriptor[] = [];
  for (const d of listed) {
    if (kind.formerArtifactType && d.artifactType === kind.formerArtifactType) {
      found.push(d);
      continue;
    }
    if (d.artifactType !== BUNDLE_ARTIFACT_TYPE) continue;
    const predicate = (await withBundlePredicate(store, repository, d)).annotations?.[
      BUNDLE_PREDICATE_ANNOTATION
    ];
    if (predicate === kind.predicateType || (kind.unannotated && predicate === undefined)) found.push(d);
  }
  return found;
}

/**
 * A bundle referrer as listed, with its predicate type annotation read from its manifest when the
 * listing left it out (a referrers API that drops annotations); any other referrer as it is.
 */
export async function withBundlePredicate(
  store: ImageStore,
  repository: string,
  d: Descriptor,
): Promise<Descriptor> {
  if (d.artifactType !== BUNDLE_ARTIFACT_TYPE || d.annotations?.[BUNDLE_PREDICATE_ANNOTATION] !== undefined)
    return d;
  const manifest = await store.getManifest(repository, d.digest);
  const json = manifest ? parseJson(manifest.bytes) : undefined;
  const value = (json as { annotations?: Record<string, unknown> } | undefined)?.annotations?.[
    BUNDLE_PREDICATE_ANNOTATION
  ];
  return typeof value === 'string'
    ? { ...d, annotations: { ...d.annotations, [BUNDLE_PREDICATE_ANNOTATION]: value } }
    : d;
}

/**
 * Copy the referrers of `subjectDigest` (manifests, blobs and fallback entries) from one store or
 * repository to another, so an image's signatures travel with it. Referrer bytes are copied
 * unchanged; a referrer that is already there is not pushed again.
 */
export async function copyReferrers(
  from: ImageStore,
  fromRepository: string,
  subjectDigest: string,
  to: ImageStore,
  toRepository: string,
): Promise<Descriptor[]> {
  if (from === to && fromRepository === toRepository) return [];
  const referrers = await listReferrers(from, fromRepository, subjectDigest);
  const copied: Descriptor[] = [];
  for (const referrer of referrers) {
    const manifest = await from.getManifest(fromRepository, referrer.digest);
    if (!manifest) continue; // listed in a stale fallback index but deleted: nothing to carry
    for (const blob of referencesOf(manifest.bytes, manifest.descriptor.mediaType).blobs) {
      if (await to.hasBlob(toRepository, blob.digest)) continue;
      await to.putBlob(toRepository, blob.digest, await from.getBlob(fromRepository, blob.digest));
    }
    await to.putManifest(toRepository, referrer.digest, manifest.bytes, manifest.descriptor.mediaType);
    copied.push(referrer);
  }
  if (copied.length > 0) await updateFallbackIndex(to, toRepository, subjectDigest, { add: copied });
  await copyCosignTags(from, fromRepository, subjectDigest, to, toRepository);
  return copied;
}

/**
 * cosign's signature and attestation tags of the subject (`sha256-<hex>.sig`, `.att`), copied
 * unchanged (blobs first, the tag last) where the target has none: what `cosign copy` carries.
 * Whether they verify is the reader's to check, as for the referrers copied with them.
 */
async function copyCosignTags(
  from: ImageStore,
  fromRepository: string,
  subjectDigest: string,
  to: ImageStore,
  toRepository: string,
): Promise<void> {
  for (const suffix of ['.sig', '.att']) {
    const tag = `${referrersTag(subjectDigest)}${suffix}`;
    const manifest = await from.getManifest(fromRepository, tag);
    if (!manifest || (await to.resolve(toRepository, tag))) continue;
    for (const blob of referencesOf(manifest.bytes, manifest.descriptor.mediaType).blobs) {
      if (await to.hasBlob(toRepository, blob.digest)) continue;
      await to.putBlob(toRepository, blob.digest, await from.getBlob(fromRepository, blob.digest));
    }
    await to.putManifest(toRepository, tag, manifest.bytes, manifest.descriptor.mediaType);
  }
}

/** The referrers the tag schema lists: the index tagged `sha256-<hex>`, or none. */
export async function fallbackReferrers(
  store: ImageStore,
  repository: string,
  subjectDigest: string,
): Promise<Descriptor[]> {
  const index = await store.getManifest(repository, referrersTag(subjectDigest));
  if (!index) return [];
  const parsed = parseIndexJson(parseJson(index.bytes));
  if (typeof parsed !== 'string') return parsed.manifests;
  throw new ExternalError(
    'REFERRERS_INDEX_UNREADABLE',
    `${store.name}: ${repository}:${referrersTag(subjectDigest)} is not an OCI index (${parsed})`,
    {
      hint: 'the referrers fallback tag was overwritten by something else; delete it and run `release sign` again',
    },
  );
}

/**
 * Rewrite the fallback index of `subjectDigest` with `change.add` merged in and the digests in
 * `change.remove` left out (removing is how a signature is withdrawn from the tag schema).
 */
export async function updateFallbackIndex(
  store: ImageStore,
  repository: string,
  subjectDigest: string,
  change: { add?: Descriptor[]; remove?: string[] },
): Promise<void> {
  const listed = await fallbackReferrers(store, repository, subjectDigest);
  // An entry whose manifest was deleted (someone removed a referrer by digest) would make a
  // registry refuse the whole index (MANIFEST_BLOB_UNKNOWN): nothing could be attached again.
  const present = await Promise.all(listed.map((d) => store.resolve(repository, d.digest)));
  const current = listed.filter((_, i) => present[i] !== undefined);
  const add = change.add ?? [];
  const drop = new Set([...add.map((d) => d.digest), ...(change.remove ?? [])]);
  const manifests = [...current.filter((d) => !drop.has(d.digest)), ...add];
  const bytes = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPES.ociIndex, manifests }));
  await store.putManifest(repository, referrersTag(subjectDigest), bytes, MEDIA_TYPES.ociIndex);
}

async function putBlobOnce(
  store: ImageStore,
  repository: string,
  digest: string,
  bytes: Uint8Array,
): Promise<void> {
  if (!(await store.hasBlob(repository, digest))) await store.putBlob(repository, digest, bytes);
}
