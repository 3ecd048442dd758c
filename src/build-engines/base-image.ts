import { existsSync } from 'node:fs';
import { readFile, realpath } from 'node:fs/promises';
import { execa } from 'execa';
import { ExternalError } from '../errors.ts';
import { goArch } from '../oci-image/base-image-reader.ts';
import { type OciImageConfig, rfc3339 } from '../oci-image/image-config.ts';
import { createLayer, type Layer, type LayerEntry } from '../oci-image/layer.ts';
import { putImage, type WrittenImage } from '../oci-image/write-image.ts';
import { type Descriptor, type ImageStore, MEDIA_TYPES } from '../registry/store.ts';
import {
  baseLayerKey,
  type CachedLayer,
  type CacheOutcome,
  readCachedBaseLayer,
  storeBaseLayer,
} from './base-layer-cache.ts';

/** Where node lives in the base image; the service images run it from here. */
export const NODE_PATH = '/usr/local/bin/node';

/**
 * The base layer is almost all machine code (the node binary, ~100 MB), which level 6 squeezes only
 * 8% smaller than level 1 for 2.3 times the time (2.0 s against 0.85 s on a quiet 2-core machine):
 * it was the largest cost of a first build. Fixed, so the same node still gives the same digest.
 */
const BASE_GZIP_LEVEL = 1;

const CA_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt'];

export interface BaseImageResult extends WrittenImage {
  /** What went in, as image paths: node, its shared libraries, the minimal /etc. */
  files: string[];
  nodeVersion: string;
  /** Whether the layer came from the cache (`hit`), was made and kept, remade over a bad entry, or no cache. */
  cache: CacheOutcome;
}

/**
 * Make the minimal runnable base image on this machine (nothing can be pulled here): the running
 * node binary, the shared libraries `ldd` says it loads, a minimal /etc (passwd, group, hosts
 * lookup order, CA certificates when present) and a /tmp. One deterministic layer, so the same
 * node on the same machine always gives the same digest.
 */
export async function makeBaseImage(options: {
  store: ImageStore;
  repository: string;
  tags: readonly string[];
  /** Layer mtime and `created`: SOURCE_DATE_EPOCH when set, else 0. */
  epoch: number;
  node?: string;
  /** The toolkit's cache folder (files/user-cache-dir.ts); undefined makes the layer every time. */
  cacheDir?: string;
}): Promise<BaseImageResult> {
  const node = options.node ?? process.execPath;
  const entries: LayerEntry[] = [
    { type: 'file', path: NODE_PATH, mode: 0o755, source: await realpath(node) },
    { type: 'symlink', path: '/usr/bin/node', target: NODE_PATH },
    ...(await sharedLibraries(node)).map(
      (lib): LayerEntry => ({ type: 'file', path: lib.path, mode: 0o755, source: lib.source }),
    ),
    {
      type: 'file',
      path: '/etc/passwd',
      content:
        'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n',
    },
    { type: 'file', path: '/etc/group', content: 'root:x:0:\nnogroup:x:65534:\n' },
    { type: 'file', path: '/etc/nsswitch.conf', content: 'hosts: files dns\n' },
    { type: 'dir', path: '/tmp', mode: 0o1777 },
    { type: 'dir', path: '/root', mode: 0o700 },
  ];
  const ca = CA_BUNDLES.find((path) => existsSync(path));
  if (ca)
    entries.push({ type: 'file', path: '/etc/ssl/certs/ca-certificates.crt', source: await realpath(ca) });

  const made = await baseLayer(node, entries, options.epoch, options.cacheDir);
  const { nodeVersion } = made;
  let layer: Layer | Descriptor;
  if ('path' in made) {
    // From the cache, checked: the store copies the file in (no second hash, nothing in memory).
    const { store, repository } = options;
    if (!(await store.hasBlob(repository, made.digest))) {
      if (store.writeBlobFrom) await store.writeBlobFrom(repository, made.digest, made.path);
      else await store.putBlob(repository, made.digest, await readFile(made.path));
    }
    layer = { mediaType: MEDIA_TYPES.ociLayerGzip, digest: made.digest, size: made.size };
  } else layer = made.layer;
  const diffId = 'path' in made ? made.diffId : made.layer.diffId;
  const created = rfc3339(options.epoch);
  const config: OciImageConfig = {
    created,
    architecture: goArch(process.arch),
    os: 'linux',
    config: {
      Env: ['PATH=/usr/local/bin:/usr/bin:/bin', `NODE_VERSION=${nodeVersion.replace(/^v/, '')}`],
      Entrypoint: [NODE_PATH],
      Cmd: null,
      WorkingDir: '/',
      Labels: {
        'org.opencontainers.image.created': created,
        'org.opencontainers.image.title': 'node (minimal base made by release base-image)',
        'org.opencontainers.image.version': nodeVersion,
      },
    },
    rootfs: { type: 'layers', diff_ids: [diffId] },
    history: [{ created, created_by: `release base-image: node ${nodeVersion} and its shared libraries` }],
  };
  const written = await putImage({ ...options, config, layers: [layer] });
  return { ...written, files: entries.map((e) => e.path), nodeVersion, cache: made.cache };
}

/** The layer from the cache when an entry of the same inputs is sound, else made (and kept). */
async function baseLayer(
  node: string,
  entries: readonly LayerEntry[],
  epoch: number,
  cacheDir: string | undefined,
): Promise<(CachedLayer & { cache: 'hit' }) | { layer: Layer; nodeVersion: string; cache: CacheOutcome }> {
  const key = cacheDir ? await baseLayerKey(entries, epoch, BASE_GZIP_LEVEL) : undefined;
  const cached = cacheDir && key ? await readCachedBaseLayer(cacheDir, key) : 'missing';
  if (typeof cached === 'object') return { ...cached, cache: 'hit' };
  const [nodeVersion, layer] = await Promise.all([
    execa(node, ['--version']).then((r) => r.stdout.trim()),
    createLayer(entries, epoch, BASE_GZIP_LEVEL),
  ]);
  if (!cacheDir || !key) return { layer, nodeVersion, cache: 'off' };
  await storeBaseLayer(cacheDir, key, layer, nodeVersion);
  return { layer, nodeVersion, cache: cached === 'corrupt' ? 'remade' : 'made' };
}

/** The shared libraries `ldd` lists (the dynamic loader included), at the paths the loader uses. */
export async function sharedLibraries(binary: string): Promise<{ path: string; source: string }[]> {
  let stdout: string;
  try {
    ({ stdout } = await execa('ldd', [binary]));
  } catch (error) {
    const text = `${(error as { stdout?: string }).stdout ?? ''}${(error as { stderr?: string }).stderr ?? ''}`;
    if (/not a dynamic executable/.test(text)) return [];
    throw new ExternalError('LDD_FAILED', `could not list the shared libraries of ${binary} with ldd`, {
      hint: 'install ldd (Debian: libc-bin), or set artifacts.<name>.base to an existing base image',
      cause: error,
    });
  }
  const libraries = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    // "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)"
    const match = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line);
    if (match?.[1]) libraries.set(match[1], await realpath(match[1]));
  }
  return [...libraries].map(([path, source]) => ({ path, source }));
}
