import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { extract } from 'tar-stream';
import { ExternalError } from '../errors.ts';
import type { Descriptor, ImageStore } from '../registry/store.ts';
import type { NpmPackage } from './sbom.ts';

/** What the build added on top of its base: each regular file's SHA-256 and the npm packages. */
export interface AddedContents {
  files: { path: string; sha256: string }[];
  packages: NpmPackage[];
}

/**
 * Read an image's own layers (those above its base's `baseLayers`) back from the store, the
 * same way for both engines: what is listed is what was pushed, not what a recipe meant to
 * write. Later layers win over earlier ones and whiteouts remove, as a container would see it.
 */
export async function readAddedContents(
  store: ImageStore,
  repository: string,
  digest: string,
  baseLayers: number,
): Promise<AddedContents> {
  const manifest = await store.getManifest(repository, digest);
  if (!manifest) {
    throw new ExternalError('EVIDENCE_IMAGE_MISSING', `${store.name} has no ${repository}@${digest}`, {
      hint: 'the image must be in a store for its SBOM to be read from its layers (--push with the docker engine)',
    });
  }
  const layers = (JSON.parse(Buffer.from(manifest.bytes).toString('utf8')) as { layers?: Descriptor[] })
    .layers;
  const files = new Map<string, Buffer>();
  for (const layer of (layers ?? []).slice(baseLayers)) {
    await readLayer(await store.getBlob(repository, layer.digest), files);
  }
  const paths = [...files.keys()].sort();
  return {
    files: paths.map((path) => ({
      path,
      sha256: createHash('sha256').update(files.get(path)!).digest('hex'),
    })),
    packages: paths.flatMap((path) => npmPackageAt(path, files.get(path)!)),
  };
}

/** `…/node_modules/<name>/package.json` or `…/node_modules/@scope/<name>/package.json`. */
const PACKAGE_JSON = /\/node_modules\/((?:@[^/]+\/)?[^/@][^/]*)\/package\.json$/;

function npmPackageAt(path: string, bytes: Buffer): NpmPackage[] {
  const folder = PACKAGE_JSON.exec(path)?.[1];
  if (!folder) return [];
  let manifest: { name?: unknown; version?: unknown; license?: unknown };
  try {
    manifest = JSON.parse(bytes.toString('utf8')) as typeof manifest;
  } catch {
    return []; // a file called package.json that is not one says nothing about a package
  }
  if (typeof manifest.version !== 'string') return [];
  const name = typeof manifest.name === 'string' ? manifest.name : folder;
  return [
    {
      name,
      version: manifest.version,
      path,
      ...(typeof manifest.license === 'string' ? { license: manifest.license } : {}),
    },
  ];
}

async function readLayer(blob: Uint8Array, files: Map<string, Buffer>): Promise<void> {
  const bytes = Buffer.from(blob);
  const tar = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes;
  const reader = extract();
  const done = new Promise<void>((resolve, reject) => {
    reader.on('finish', resolve);
    reader.on('error', reject);
  });
  reader.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    stream.on('end', () => {
      const path = posix.join('/', header.name);
      const base = posix.basename(path);
      if (base === '.wh..wh..opq') {
        const dir = posix.dirname(path);
        for (const key of files.keys()) if (key.startsWith(`${dir}/`)) files.delete(key);
      } else if (base.startsWith('.wh.')) {
        const gone = posix.join(posix.dirname(path), base.slice(4));
        for (const key of files.keys()) if (key === gone || key.startsWith(`${gone}/`)) files.delete(key);
      } else if (header.type === 'file') {
        files.set(path, Buffer.concat(chunks));
      }
      next();
    });
    stream.resume();
  });
  reader.end(tar);
  await done;
}
