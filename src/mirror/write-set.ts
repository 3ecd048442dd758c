import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { RuleError } from '../errors.ts';
import { sha256Digest } from '../registry/digest.ts';
import { parseManifestBytes } from '../registry/oci-schema.ts';
import {
  BUNDLE_ARTIFACT_TYPE,
  BUNDLE_PREDICATE_ANNOTATION,
  fallbackReferrers,
  updateFallbackIndex,
} from '../registry/referrers.ts';
import type { Descriptor, ImageStore } from '../registry/store.ts';
import { writeCosignAttestation } from '../signing/cosign-tags.ts';
import { PREDICATE_TYPE as SIGNATURE_PREDICATE } from '../signing/statement.ts';
import type { MirrorSet, TagWrite } from './mirror-set.ts';
import { mirrorTempDir } from './temp-dir.ts';

/** An evidence bundle carries its statement (an SBOM runs to megabytes), as `readEvidence` reads it. */
const MAX_ATTESTATION_BUNDLE_BYTES = 64 * 1024 * 1024;

type SetBlob = MirrorSet['blobs'][number];

export interface WriteCounts {
  blobs: { copied: number; present: number; bytes: number };
  manifests: { copied: number; present: number };
  tags: number;
}

/**
 * Write the set's content into the target: blobs, then manifests (children before their index,
 * referrers after their subject), then each subject's referrers fallback index. No version tag
 * is written here: `writeTags` comes after, so a run killed in here leaves no tag pointing at
 * anything missing. What the target already has is skipped, so a re-run copies only the rest.
 */
export async function writeContent(
  from: ImageStore,
  to: ImageStore,
  set: MirrorSet,
  progress: (text: string) => void = () => {},
): Promise<WriteCounts> {
  const counts: WriteCounts = {
    blobs: { copied: 0, present: 0, bytes: 0 },
    manifests: { copied: 0, present: 0 },
    tags: 0,
  };
  // A spool directory when both ends stream: large layers go through a file, never memory.
  const spool = from.readBlobTo && to.writeBlobFrom ? await mirrorTempDir() : undefined;
  try {
    // Blobs come grouped by image (as collected): one progress line as each image's are done.
    let current: { repository: string; copied: number; present: number } | undefined;
    const done = () => {
      if (current)
        progress(`${current.repository}: ${current.copied} blob(s) copied, ${current.present} already there`);
    };
    for (const blob of set.blobs) {
      if (current?.repository !== blob.repository) {
        done();
        current = { repository: blob.repository, copied: 0, present: 0 };
      }
      if (await to.hasBlob(blob.repository, blob.digest)) {
        counts.blobs.present++;
        current.present++;
        continue;
      }
      counts.blobs.bytes += spool
        ? await copyStreamed(from, to, blob, spool)
        : await copyInMemory(from, to, blob);
      counts.blobs.copied++;
      current.copied++;
    }
    done();
  } finally {
    if (spool) await rm(spool, { recursive: true, force: true });
  }
  progress(
    `${counts.blobs.copied} blob(s) copied (${counts.blobs.bytes} bytes), ${counts.blobs.present} already there`,
  );
  // Cosign signature tags after every manifest they could name (their subjects) is written.
  const cosign = set.manifests.filter((m) => m.role === 'cosign');
  for (const manifest of [...set.manifests.filter((m) => m.role !== 'cosign'), ...cosign]) {
    const reference = manifest.tag ?? manifest.digest;
    if ((await to.resolve(manifest.repository, reference))?.digest === manifest.digest) {
      counts.manifests.present++;
      continue;
    }
    await to.putManifest(manifest.repository, reference, manifest.bytes, manifest.mediaType);
    counts.manifests.copied++;
  }
  progress(`${counts.manifests.copied} manifest(s) copied, ${counts.manifests.present} already there`);
  for (const [key, referrers] of referrersBySubject(set)) {
    const [repository, subject] = key.split('@') as [string, string];
    // Already listed (a re-run over a complete set): the tag is not rewritten, nothing changes.
    const listed = new Set((await fallbackReferrers(to, repository, subject)).map((d) => d.digest));
    if (referrers.every((r) => listed.has(r.digest))) continue;
    await updateFallbackIndex(to, repository, subject, { add: referrers });
  }
  await writeCosignAttestations(to, set);
  return counts;
}

/**
 * Through a file: read to disk, hash it, and only then send it on; memory stays flat whatever the
 * layer's size, and a changed byte never reaches the target.
 */
async function copyStreamed(from: ImageStore, to: ImageStore, blob: SetBlob, spool: string): Promise<number> {
  const path = join(spool, blob.digest.slice('sha256:'.length));
  await from.readBlobTo!(blob.repository, blob.digest, path);
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  if (`sha256:${hash.digest('hex')}` !== blob.digest) throw tampered(from, blob);
  await to.writeBlobFrom!(blob.repository, blob.digest, path);
  await rm(path, { force: true });
  return size;
}

/** Checked as read, before it is written: a changed byte never reaches the target. */
async function copyInMemory(from: ImageStore, to: ImageStore, blob: SetBlob): Promise<number> {
  const bytes = await from.getBlob(blob.repository, blob.digest);
  if (sha256Digest(bytes) !== blob.digest) throw tampered(from, blob);
  await to.putBlob(blob.repository, blob.digest, bytes);
  return bytes.length;
}

function tampered(from: ImageStore, blob: SetBlob): RuleError {
  return new RuleError(
    'BLOB_TAMPERED',
    `${from.name}: blob ${blob.digest} of ${blob.repository} does not match its digest`,
    { hint: 'the source was changed; do not load it, mirror again from a trusted source' },
  );
}

/** Version tags in the order given (`tagWrites`): the last writes of a mirror. */
export async function writeTags(
  to: ImageStore,
  set: MirrorSet,
  writes: TagWrite[],
  progress: (text: string) => void = () => {},
): Promise<number> {
  const byKey = new Map(set.manifests.map((m) => [`${m.repository}@${m.digest}`, m]));
  for (const write of writes) {
    const manifest = byKey.get(`${write.repository}@${write.digest}`)!;
    await to.putManifest(write.repository, write.tag, manifest.bytes, manifest.mediaType);
    progress(`${write.repository}:${write.tag} -> ${write.digest}`);
  }
  return writes.length;
}

/**
 * The `.att` tag of each subject whose source had one, from the evidence bundles carried: each
 * bundle's DSSE envelope is the attestation (the same signature, verified with the bundle).
 */
async function writeCosignAttestations(to: ImageStore, set: MirrorSet): Promise<void> {
  const wanted = new Set(set.cosignAttestations ?? []);
  for (const m of set.manifests) {
    if (m.role !== 'referrer' || !m.subject || !wanted.has(`${m.repository}@${m.subject}`)) continue;
    const parsed = parseManifestBytes(m.bytes, m.mediaType);
    if (parsed.kind !== 'image') continue;
    const predicate = parsed.value.annotations?.[BUNDLE_PREDICATE_ANNOTATION];
    const layer = parsed.value.layers?.[0];
    if (!predicate || predicate === SIGNATURE_PREDICATE || !layer || layer.mediaType !== BUNDLE_ARTIFACT_TYPE)
      continue;
    const bundle = await to.getBlob(m.repository, layer.digest, MAX_ATTESTATION_BUNDLE_BYTES);
    await writeCosignAttestation(to, { repository: m.repository, digest: m.subject }, bundle, predicate);
  }
}

/** The referrers of each subject, as fallback index entries (artifact type and annotations kept). */
function referrersBySubject(set: MirrorSet): Map<string, Descriptor[]> {
  const found = new Map<string, Descriptor[]>();
  for (const m of set.manifests) {
    if (m.role !== 'referrer' || !m.subject) continue;
    const parsed = parseManifestBytes(m.bytes, m.mediaType);
    if (parsed.kind !== 'image') continue; // collected through the store's check: never here
    const json = parsed.value;
    const artifactType = json.artifactType ?? json.config?.mediaType;
    const entry: Descriptor = {
      mediaType: m.mediaType,
      digest: m.digest,
      size: m.bytes.length,
      ...(artifactType ? { artifactType } : {}),
      ...(json.annotations ? { annotations: json.annotations } : {}),
    };
    const key = `${m.repository}@${m.subject}`;
    found.set(key, [...(found.get(key) ?? []), entry]);
  }
  return found;
}
