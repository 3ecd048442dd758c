import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, normalize, sep } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { readTar } from '../archives/tar-reader.ts';
import { ExternalError, UsageError } from '../errors.ts';
import { type Descriptor, type ImageStore, type Manifest, MEDIA_TYPES } from '../registry/store.ts';

const REF_NAME = 'org.opencontainers.image.ref.name';
const CONTAINERD_NAME = 'io.containerd.image.name';
const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** A base image read from a file: the store to read it from, its one image, and the clean-up. */
export interface ArchiveBase {
  store: ImageStore;
  /** The image's manifest or index digest, to pass as the reference. */
  digest: string;
  close: () => Promise<void>;
}

/**
 * A base image from a file, for builds without a registry: an OCI archive (`skopeo copy …
 * oci-archive:`, `release mirror --to oci-archive:`) or a `docker save` tarball (Docker 25 and
 * later write an OCI layout in it; older ones only `manifest.json`, read too). Unpacked into a
 * temporary folder (streamed; links, which only `docker save`'s legacy paths hold, are skipped),
 * every blob checked against its digest when read. `tag` picks one image of several by its ref
 * name or its Docker name's tag.
 */
export async function openArchiveBase(file: string, tag: string, what: string): Promise<ArchiveBase> {
  if (!existsSync(file))
    throw new UsageError('BASE_IMAGE_MISSING', `base image ${what}: ${file} does not exist`, {
      hint: 'make it with `skopeo copy docker://<image> oci-archive:<file>` or `docker save -o <file> <image>` where the image can be pulled',
    });
  const root = await mkdtemp(join(tmpdir(), 'release-base-'));
  const close = () => rm(root, { recursive: true, force: true });
  try {
    await unpack(file, root, what);
    const blobs = new Map<string, string>();
    let top: Descriptor;
    if (existsSync(join(root, 'index.json'))) top = await layoutImage(root, tag, what);
    else if (existsSync(join(root, 'manifest.json'))) top = await legacySave(root, tag, what, blobs);
    else throw notAnImage(what, 'it has neither index.json (OCI) nor manifest.json (docker save)');
    return { store: new ArchiveStore(root, what, blobs), digest: top.digest, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function unpack(file: string, root: string, what: string): Promise<void> {
  try {
    for await (const entry of readTar(createReadStream(file), { gzip: false })) {
      const name = normalize(entry.header.name).replace(/\/+$/, '');
      const inside = name !== '..' && !name.startsWith(`..${sep}`) && !name.startsWith(sep);
      if (!inside) throw notAnImage(what, `entry "${entry.header.name}" points outside it`);
      if (entry.header.type !== 'file') {
        if (entry.header.type === 'directory') await mkdir(join(root, name), { recursive: true });
        continue;
      }
      await mkdir(dirname(join(root, name)), { recursive: true });
      await entry.pipeTo(createWriteStream(join(root, name)));
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw notAnImage(what, `it is not a readable tar (${(error as Error).message})`);
  }
}

/** The image an OCI layout's index.json names: the only one, or the one tagged `tag`. */
async function layoutImage(root: string, tag: string, what: string): Promise<Descriptor> {
  const index = parseJson<{ manifests?: Descriptor[] }>(await readFile(join(root, 'index.json')), what);
  const manifests = (index.manifests ?? []).filter((m) => DIGEST.test(m.digest));
  const named = (m: Descriptor) => {
    const ref = m.annotations?.[REF_NAME] ?? '';
    const docker = m.annotations?.[CONTAINERD_NAME] ?? '';
    return ref === tag || ref.endsWith(`:${tag}`) || docker.endsWith(`:${tag}`);
  };
  const found = tag ? manifests.filter(named) : manifests;
  if (found.length === 1) return found[0]!;
  const names = manifests.map(
    (m) => m.annotations?.[CONTAINERD_NAME] ?? m.annotations?.[REF_NAME] ?? m.digest,
  );
  throw new UsageError(
    'BASE_IMAGE_AMBIGUOUS',
    `base image ${what}: ${found.length === 0 ? `no image${tag ? ` tagged ${tag}` : ''}` : `${found.length} images`} in it (${names.join(', ') || 'none'})`,
    { hint: 'name one by its tag: oci-archive:<file>:<tag> or docker-archive:<file>:<tag>' },
  );
}

/** A `docker save` of Docker before 25: manifest.json names the config and the layer tars. */
async function legacySave(
  root: string,
  tag: string,
  what: string,
  blobs: Map<string, string>,
): Promise<Descriptor> {
  const list = parseJson<{ Config: string; Layers: string[]; RepoTags?: string[] | null }[]>(
    await readFile(join(root, 'manifest.json')),
    what,
  );
  const found = tag ? list.filter((m) => (m.RepoTags ?? []).some((t) => t.endsWith(`:${tag}`))) : list;
  if (found.length !== 1)
    throw new UsageError('BASE_IMAGE_AMBIGUOUS', `base image ${what}: ${found.length} images match`, {
      hint: 'name one by its tag: docker-archive:<file>:<tag>',
    });
  const register = async (path: string, mediaType: string): Promise<Descriptor> => {
    const full = join(root, normalize(path));
    if (!full.startsWith(`${root}${sep}`) || !existsSync(full))
      throw notAnImage(what, `manifest.json names ${path}, which it does not hold`);
    const digest = `sha256:${createHash('sha256')
      .update(await readFile(full))
      .digest('hex')}`;
    blobs.set(digest, full);
    return { mediaType, digest, size: (await readFile(full)).length };
  };
  const config = await register(found[0]!.Config, MEDIA_TYPES.ociConfig);
  const layers = [];
  for (const layer of found[0]!.Layers)
    layers.push(await register(layer, 'application/vnd.oci.image.layer.v1.tar'));
  const bytes = Buffer.from(
    JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPES.ociManifest, config, layers }),
  );
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  const path = join(root, 'synthesized-manifest.json');
  await pipeline([bytes], createWriteStream(path));
  blobs.set(digest, path);
  return { mediaType: MEDIA_TYPES.ociManifest, digest, size: bytes.length };
}

/** Read-only: what a build asks of its base's store. */
class ArchiveStore implements ImageStore {
  constructor(
    private readonly root: string,
    readonly name: string,
    private readonly extra: ReadonlyMap<string, string>,
  ) {}

  async getManifest(repository: string, reference: string): Promise<Manifest | undefined> {
    if (!DIGEST.test(reference) || !(await this.hasBlob(repository, reference))) return undefined;
    const bytes = await this.getBlob(repository, reference);
    const mediaType = (JSON.parse(Buffer.from(bytes).toString('utf8')) as { mediaType?: string }).mediaType;
    return {
      descriptor: { mediaType: mediaType ?? MEDIA_TYPES.ociManifest, digest: reference, size: bytes.length },
      bytes,
    };
  }

  async resolve(repository: string, reference: string): Promise<Descriptor | undefined> {
    return (await this.getManifest(repository, reference))?.descriptor;
  }

  async hasBlob(_repository: string, digest: string): Promise<boolean> {
    return existsSync(this.pathOf(digest));
  }

  async getBlob(_repository: string, digest: string): Promise<Uint8Array> {
    const bytes = await readFile(this.pathOf(digest)).catch(() => undefined);
    if (!bytes) throw notAnImage(this.name, `it lacks the blob ${digest}`);
    const actual = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
    if (actual !== digest) throw notAnImage(this.name, `its blob ${digest} holds other bytes (${actual})`);
    return bytes;
  }

  async putManifest(): Promise<Descriptor> {
    throw new UsageError('BASE_IMAGE_READ_ONLY', `${this.name} is a base image file, read only`);
  }

  async putBlob(): Promise<void> {
    throw new UsageError('BASE_IMAGE_READ_ONLY', `${this.name} is a base image file, read only`);
  }

  async listTags(): Promise<string[]> {
    return [];
  }

  private pathOf(digest: string): string {
    if (!DIGEST.test(digest)) return join(this.root, 'missing');
    return this.extra.get(digest) ?? join(this.root, 'blobs', 'sha256', digest.slice('sha256:'.length));
  }
}

function parseJson<T>(bytes: Buffer, what: string): T {
  try {
    return JSON.parse(bytes.toString('utf8')) as T;
  } catch {
    throw notAnImage(what, 'its index is not JSON');
  }
}

function notAnImage(what: string, why: string): ExternalError {
  return new ExternalError('BASE_IMAGE_INVALID', `base image ${what} cannot be read: ${why}`, {
    hint: 'make the file again with `skopeo copy docker://<image> oci-archive:<file>` or `docker save -o <file> <image>`',
  });
}
