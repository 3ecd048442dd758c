import { existsSync } from 'node:fs';
import { copyFile, link, mkdir, readdir, readFile, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ExternalError, UsageError } from '../errors.ts';
import { sibling, writeFileAtomically } from '../files/atomic-write.ts';
import { acquireLock } from '../files/file-lock.ts';
import { declaredMediaType, isDigest, manifestDigest, sha256Digest } from './digest.ts';
import { checkLayoutVersion } from './layout-version.ts';
import { parseIndexJson, parseJson, parseManifestBytes } from './oci-schema.ts';
import { fallbackReferrers } from './referrers.ts';
import { type Descriptor, type ImageStore, type Manifest, MEDIA_TYPES } from './store.ts';
import { assertTagOrDigest } from './tag-reference.ts';

const REF_NAME = 'org.opencontainers.image.ref.name';
const REPOSITORY = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/;

interface LayoutIndex {
  schemaVersion: 2;
  mediaType?: string;
  manifests: Descriptor[];
  [key: string]: unknown;
}

/**
 * OCI image layouts on disk, one per repository: `<root>/<repository>/` with `oci-layout`,
 * `index.json` and `blobs/sha256/`, tags as `org.opencontainers.image.ref.name` annotations
 * (what `skopeo inspect oci:<root>/<repository>:<tag>` reads). Blobs are written to a temporary
 * file and renamed; `index.json` is rewritten whole under a lock file that names its holder, so a reader never
 * sees half and a lock left by a killed process is taken over at once (`files/file-lock.ts`).
 */
export class LayoutStore implements ImageStore {
  readonly name: string;

  constructor(
    readonly root: string,
    /** Told when a lock left by a killed process is taken over. */
    private readonly notice: (text: string) => void = () => {},
  ) {
    this.name = `oci-layout:${root}`;
  }

  /** Every directory this store writes temporary files into: each layout and its blobs. */
  async temporaryDirs(): Promise<string[]> {
    const entries = await readdir(this.root, { withFileTypes: true }).catch(() => []);
    return entries
      .filter((e) => e.isDirectory() && REPOSITORY.test(e.name))
      .flatMap((e) => [join(this.root, e.name), join(this.root, e.name, 'blobs', 'sha256')]);
  }

  async getManifest(repository: string, reference: string): Promise<Manifest | undefined> {
    const descriptor = await this.resolve(repository, reference);
    if (!descriptor) return undefined;
    const bytes = await this.getBlob(repository, descriptor.digest);
    const parsed = parseManifestBytes(bytes, descriptor.mediaType);
    if (parsed.kind === 'invalid')
      throw new ExternalError(
        'MANIFEST_INVALID',
        `${this.name}: ${repository} ${reference} is not an OCI or Docker manifest (${parsed.reason})`,
        { hint: 'the layout holds something that is not an image manifest there; push the image again' },
      );
    return { descriptor: { ...descriptor, size: bytes.length }, bytes };
  }

  async resolve(repository: string, reference: string): Promise<Descriptor | undefined> {
    const dir = this.dir(repository);
    if (isDigest(reference)) {
      await this.checkedLayout(dir);
      const path = this.blobPath(dir, reference);
      if (!existsSync(path)) return undefined;
      const bytes = await readFile(path);
      const mediaType = declaredMediaType(bytes) ?? MEDIA_TYPES.ociManifest;
      return { mediaType, digest: reference, size: bytes.length };
    }
    const entry = (await this.readIndex(dir)).manifests.find((d) => d.annotations?.[REF_NAME] === reference);
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
    const dir = this.dir(repository);
    const digest = manifestDigest(bytes, reference);
    assertTagOrDigest(reference);
    await this.putBlob(repository, digest, bytes);
    const descriptor: Descriptor = { mediaType, digest, size: bytes.length };
    if (!isDigest(reference)) {
      await this.updateIndex(dir, (manifests) => [
        ...manifests.filter((d) => d.annotations?.[REF_NAME] !== reference),
        { ...descriptor, annotations: { [REF_NAME]: reference } },
      ]);
    }
    return descriptor;
  }

  async deleteTag(repository: string, tag: string): Promise<void> {
    await this.updateIndex(this.dir(repository), (manifests) =>
      manifests.filter((d) => d.annotations?.[REF_NAME] !== tag),
    );
  }

  async hasBlob(repository: string, digest: string): Promise<boolean> {
    return existsSync(this.blobPath(this.dir(repository), digest));
  }

  async getBlob(repository: string, digest: string): Promise<Uint8Array> {
    const path = this.blobPath(this.dir(repository), digest);
    let bytes: Uint8Array;
    try {
      bytes = await readFile(path);
    } catch {
      throw new ExternalError('BLOB_MISSING', `${this.name}: ${repository} has no blob ${digest}`, {
        hint: 'the layout is incomplete; push or build the image again',
      });
    }
    if (sha256Digest(bytes) !== digest)
      throw new ExternalError(
        'LAYOUT_CORRUPT',
        `${this.name}: blob ${digest} of ${repository} does not match its digest`,
        {
          hint: 'the file was changed on disk; remove it and push the image again',
        },
      );
    return bytes;
  }

  async putBlob(repository: string, digest: string, bytes: Uint8Array): Promise<void> {
    if (sha256Digest(bytes) !== digest)
      throw new UsageError('DIGEST_MISMATCH', `blob bytes do not match ${digest}`, {
        hint: 'store the exact bytes the digest was computed from',
      });
    const dir = this.dir(repository);
    await this.ensureLayout(dir);
    const path = this.blobPath(dir, digest);
    if (!existsSync(path)) await this.wrap(() => writeFileAtomically(path, bytes), `write ${path}`);
  }

  async readBlobTo(repository: string, digest: string, path: string): Promise<void> {
    await copyFile(this.blobPath(this.dir(repository), digest), path);
  }

  /** Copy a checked file in (temporary name, then rename: a reader never sees half a blob). */
  async writeBlobFrom(repository: string, digest: string, path: string): Promise<void> {
    const dir = this.dir(repository);
    await this.ensureLayout(dir);
    const to = this.blobPath(dir, digest);
    if (existsSync(to)) return;
    const partial = sibling(to, 'tmp'); // swept by recovery if this process is killed
    await this.wrap(async () => {
      await copyFile(path, partial);
      await rename(partial, to);
    }, `write ${to}`);
  }

  /** Hard-link (else copy) the blob from another repository's layout under the same root. */
  async mountBlob(fromRepository: string, toRepository: string, digest: string): Promise<boolean> {
    const from = this.blobPath(this.dir(fromRepository), digest);
    if (!existsSync(from)) return false;
    const toDir = this.dir(toRepository);
    await this.ensureLayout(toDir);
    const to = this.blobPath(toDir, digest);
    if (existsSync(to)) return true;
    await mkdir(dirname(to), { recursive: true });
    await link(from, to).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') await copyFile(from, to);
    });
    return true;
  }

  /** A layout has no referrers API: its referrers are the `sha256-<hex>` tag's index. */
  referrers(repository: string, digest: string): Promise<Descriptor[]> {
    return fallbackReferrers(this, repository, digest);
  }

  async listTags(repository: string): Promise<string[]> {
    const index = await this.readIndex(this.dir(repository));
    return index.manifests.flatMap((d) => (d.annotations?.[REF_NAME] ? [d.annotations[REF_NAME]] : []));
  }

  private dir(repository: string): string {
    if (!REPOSITORY.test(repository))
      throw new UsageError('REPOSITORY_INVALID', `"${repository}" is not a repository name`, {
        hint: 'use lowercase names like "service-api"',
      });
    return join(this.root, repository);
  }

  private blobPath(dir: string, digest: string): string {
    if (!isDigest(digest)) throw new UsageError('DIGEST_INVALID', `"${digest}" is not a sha256 digest`);
    return join(dir, 'blobs', 'sha256', digest.slice('sha256:'.length));
  }

  /** Each repository's layout, its version checked once (`checkLayoutVersion`). */
  private readonly checked = new Set<string>();

  private async checkedLayout(dir: string): Promise<void> {
    if (this.checked.has(dir)) return;
    await checkLayoutVersion(dir, `${this.name} (${dir})`);
    this.checked.add(dir);
  }

  private async readIndex(dir: string): Promise<LayoutIndex> {
    await this.checkedLayout(dir);
    let text: string;
    try {
      text = await readFile(join(dir, 'index.json'), 'utf8');
    } catch {
      return { schemaVersion: 2, mediaType: MEDIA_TYPES.ociIndex, manifests: [] };
    }
    const index = parseJson(text) as LayoutIndex;
    // Checked as any outside index: a `[null]` entry or a number for a ref name is a refusal here.
    const checked = parseIndexJson(index);
    if (typeof checked !== 'string') return index;
    throw new ExternalError(
      'LAYOUT_CORRUPT',
      `${join(dir, 'index.json')} is not an OCI image index (${index === undefined ? 'not JSON' : checked})`,
      { hint: 'restore the file from a backup, or remove the layout directory and push again' },
    );
  }

  private async ensureLayout(dir: string): Promise<void> {
    if (existsSync(join(dir, 'oci-layout'))) return;
    await this.wrap(async () => {
      await mkdir(join(dir, 'blobs', 'sha256'), { recursive: true });
      await writeFileAtomically(join(dir, 'oci-layout'), '{"imageLayoutVersion":"1.0.0"}\n').catch(
        (error) => {
          if (!existsSync(join(dir, 'oci-layout'))) throw error;
        },
      );
    }, `create the layout ${dir}`);
  }

  /** Read-modify-write `index.json` under `index.json.lock`, replacing the file by rename. */
  private async updateIndex(dir: string, change: (manifests: Descriptor[]) => Descriptor[]): Promise<void> {
    await this.ensureLayout(dir);
    const unlock = await acquireLock(join(dir, 'index.json.lock'), {
      what: `the layout ${dir}`,
      notice: this.notice,
    });
    try {
      const index = await this.readIndex(dir);
      const next = {
        ...index,
        schemaVersion: 2,
        mediaType: MEDIA_TYPES.ociIndex,
        manifests: change(index.manifests),
      };
      await this.wrap(
        () => writeFileAtomically(join(dir, 'index.json'), `${JSON.stringify(next)}\n`),
        'write index.json',
      );
    } finally {
      await unlock();
    }
  }

  private async wrap<T>(work: () => Promise<T>, what: string): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw new ExternalError(
        'LAYOUT_WRITE_FAILED',
        `${this.name}: could not ${what}: ${(error as Error).message}`,
        {
          hint: 'check that the layout directory is writable and the disk has space',
          cause: error,
        },
      );
    }
  }
}
