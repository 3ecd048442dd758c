import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RuleError, UsageError } from '../errors.ts';
import { writeFileAtomically } from '../files/atomic-write.ts';
import { declaredMediaType, isDigest, manifestDigest, sha256Digest } from './digest.ts';
import { checkLayoutVersion } from './layout-version.ts';
import { MAX_MANIFEST_BYTES, parseIndexJson, parseJson, parseManifestBytes } from './oci-schema.ts';
import { fallbackReferrers } from './referrers.ts';
import { type Descriptor, type ImageStore, type Manifest, MEDIA_TYPES } from './store.ts';
import { assertTagOrDigest } from './tag-reference.ts';

export const REF_NAME = 'org.opencontainers.image.ref.name';
/** An archive's `index.json` names tags only: 4 MiB holds tens of thousands of them. */
export const MAX_INDEX_BYTES = 4 * 1024 * 1024;

/**
 * ONE OCI image layout holding every repository (what an `oci-archive:` tar carries at its root):
 * blobs shared under `blobs/sha256/`, and each tag in `index.json` as the ref name
 * `<repository>:<tag>`, so `skopeo inspect oci-archive:<file>:<repository>:<tag>` finds it. The
 * index is kept in memory and written by `flush()`, sorted, so equal contents give equal bytes.
 *
 * Content read back is checked against its digest: an archive is carried by hand across an air
 * gap, and a changed byte in it is a refusal (exit 1), not a failure of something outside.
 */
export class FlatLayoutStore implements ImageStore {
  readonly name: string;
  private readonly tags = new Map<string, Descriptor>();

  private constructor(
    readonly root: string,
    name: string,
  ) {
    this.name = name;
  }

  /** Open (or start) the layout in `root`, reading its index.json when there is one. */
  static async open(root: string, name = `oci-layout:${root}`): Promise<FlatLayoutStore> {
    const store = new FlatLayoutStore(root, name);
    await checkLayoutVersion(root, name);
    const path = join(root, 'index.json');
    if (existsSync(path)) {
      const refused = (why: string) =>
        new RuleError('LAYOUT_INDEX_INVALID', `${name}: index.json ${why}`, {
          hint: 'the layout or archive was changed or cut short; make it again from the source',
        });
      const { size } = await stat(path);
      if (size > MAX_INDEX_BYTES) throw refused(`is ${size} bytes, over the ${MAX_INDEX_BYTES}-byte limit`);
      const json = parseJson(await readFile(path));
      if (json === undefined) throw refused('is not JSON');
      const index = parseIndexJson(json);
      if (typeof index === 'string') throw refused(`is not an OCI image index (${index})`);
      for (const entry of index.manifests) {
        const ref = entry.annotations?.[REF_NAME];
        if (ref) store.tags.set(ref, entry);
      }
    }
    return store;
  }

  /** Every `<repository>:<tag>` in the layout, sorted. */
  refNames(): string[] {
    return [...this.tags.keys()].sort();
  }

  async getManifest(repository: string, reference: string): Promise<Manifest | undefined> {
    const descriptor = await this.resolve(repository, reference);
    if (!descriptor) return undefined;
    const what = `${repository}${isDigest(reference) ? '@' : ':'}${reference}`;
    if (descriptor.size > MAX_MANIFEST_BYTES)
      throw this.invalid(
        what,
        `its descriptor says ${descriptor.size} bytes, over the ${MAX_MANIFEST_BYTES}-byte limit`,
      );
    // The descriptor may lie about the size: the blob itself is held to the limit too.
    const bytes = await this.getBlob(repository, descriptor.digest, MAX_MANIFEST_BYTES);
    const parsed = parseManifestBytes(bytes, descriptor.mediaType);
    if (parsed.kind === 'invalid') throw this.invalid(what, parsed.reason);
    return { descriptor: { ...descriptor, size: bytes.length }, bytes };
  }

  /** A manifest of the layout that is not one: the archive's content fails a check (exit 1). */
  private invalid(what: string, reason: string): RuleError {
    return new RuleError(
      'MANIFEST_INVALID',
      `${this.name}: ${what} is not an OCI or Docker manifest (${reason})`,
      {
        hint: 'the archive was changed or made by another tool; do not load it, make it again from the source',
      },
    );
  }

  async resolve(repository: string, reference: string): Promise<Descriptor | undefined> {
    if (isDigest(reference)) {
      if (!existsSync(this.blobPath(reference))) return undefined;
      const { size } = await stat(this.blobPath(reference));
      if (size > MAX_MANIFEST_BYTES)
        throw this.invalid(
          `${repository}@${reference}`,
          `${size} bytes, over the ${MAX_MANIFEST_BYTES}-byte limit`,
        );
      const bytes = await this.getBlob(repository, reference);
      return {
        mediaType: declaredMediaType(bytes) ?? MEDIA_TYPES.ociManifest,
        digest: reference,
        size: bytes.length,
      };
    }
    const entry = this.tags.get(`${repository}:${reference}`);
    if (!entry) return undefined;
    const { annotations: _, ...descriptor } = entry;
    return descriptor;
  }

  async putManifest(
    repository: string,
    reference: string,
    bytes: Uint8Array,
    mediaType: string,
  ): Promise<Descriptor> {
    assertTagOrDigest(reference);
    const digest = manifestDigest(bytes, reference);
    await this.putBlob(repository, digest, bytes);
    const descriptor: Descriptor = { mediaType, digest, size: bytes.length };
    if (!isDigest(reference))
      this.tags.set(`${repository}:${reference}`, {
        ...descriptor,
        annotations: { [REF_NAME]: `${repository}:${reference}` },
      });
    return descriptor;
  }

  async deleteTag(repository: string, tag: string): Promise<void> {
    this.tags.delete(`${repository}:${tag}`);
  }

  async hasBlob(_repository: string, digest: string): Promise<boolean> {
    return existsSync(this.blobPath(digest));
  }

  async getBlob(_repository: string, digest: string, maxBytes?: number): Promise<Uint8Array> {
    const size =
      maxBytes === undefined
        ? 0
        : await stat(this.blobPath(digest)).then(
            (s) => s.size,
            () => 0,
          );
    if (maxBytes !== undefined && size > maxBytes)
      throw new RuleError(
        'ARCHIVE_BLOB_TOO_LARGE',
        `${this.name}: blob ${digest} is ${size} bytes, over the ${maxBytes}-byte limit of what it should hold`,
        {
          hint: 'the archive was changed after it was made; do not load it, make it again from the source',
        },
      );
    let bytes: Uint8Array;
    try {
      bytes = await readFile(this.blobPath(digest));
    } catch {
      throw new RuleError('ARCHIVE_BLOB_MISSING', `${this.name} has no blob ${digest}`, {
        hint: 'the archive is incomplete; make it again with release mirror --to oci-archive:<file>',
      });
    }
    if (sha256Digest(bytes) !== digest)
      throw new RuleError('BLOB_TAMPERED', `${this.name}: blob ${digest} does not match its digest`, {
        hint: 'the archive was changed after it was made; do not load it, make it again from the source',
      });
    return bytes;
  }

  async putBlob(_repository: string, digest: string, bytes: Uint8Array): Promise<void> {
    if (sha256Digest(bytes) !== digest)
      throw new UsageError('DIGEST_MISMATCH', `blob bytes do not match ${digest}`);
    const path = this.blobPath(digest);
    if (existsSync(path)) return;
    await mkdir(join(this.root, 'blobs', 'sha256'), { recursive: true });
    await writeFileAtomically(path, bytes);
  }

  async readBlobTo(_repository: string, digest: string, path: string): Promise<void> {
    await copyFile(this.blobPath(digest), path).catch(() => {
      throw new RuleError('ARCHIVE_BLOB_MISSING', `${this.name} has no blob ${digest}`);
    });
  }

  async writeBlobFrom(_repository: string, digest: string, path: string): Promise<void> {
    const to = this.blobPath(digest);
    if (existsSync(to)) return;
    await mkdir(join(this.root, 'blobs', 'sha256'), { recursive: true });
    await copyFile(path, `${to}.partial`);
    await rename(`${to}.partial`, to);
  }

  referrers(repository: string, digest: string): Promise<Descriptor[]> {
    return fallbackReferrers(this, repository, digest);
  }

  async listTags(repository: string): Promise<string[]> {
    const prefix = `${repository}:`;
    return this.refNames()
      .filter((ref) => ref.startsWith(prefix))
      .map((ref) => ref.slice(prefix.length));
  }

  /** Write `oci-layout` and index.json (entries sorted by ref name: same contents, same bytes). */
  async flush(): Promise<void> {
    await mkdir(join(this.root, 'blobs', 'sha256'), { recursive: true });
    await writeFileAtomically(join(this.root, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}\n');
    const manifests = this.refNames().map((ref) => this.tags.get(ref)!);
    const index = { schemaVersion: 2, mediaType: MEDIA_TYPES.ociIndex, manifests };
    await writeFileAtomically(join(this.root, 'index.json'), `${JSON.stringify(index)}\n`);
  }

  private blobPath(digest: string): string {
    if (!isDigest(digest)) throw new UsageError('DIGEST_INVALID', `"${digest}" is not a sha256 digest`);
    return join(this.root, 'blobs', 'sha256', digest.slice('sha256:'.length));
  }
}
