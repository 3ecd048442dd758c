import { createHash } from 'node:crypto';
import { ExternalError } from '../errors.ts';
import { applyLayers, readLayer } from '../oci-image/read-layer.ts';
import { platformChildren } from '../registry/platform-children.ts';
import type { Descriptor, ImageStore } from '../registry/store.ts';
import type { NpmPackage } from './sbom.ts';

/**
 * What the build added on top of its base: each regular file's SHA-256 and the npm packages. Of
 * an index, every platform image's, each entry naming its platform, and the platform images.
 */
export interface AddedContents {
  files: { path: string; sha256: string; platform?: string }[];
  packages: (NpmPackage & { platform?: string })[];
  /** An index's platform images (attestation manifests left out), in its order. */
  platforms?: { platform: string; digest: string }[];
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
  // An index has no layers of its own: what it holds is each platform image's (several platforms
  // built with BuildKit, or an adopted buildx index), read the same way, each entry tagged with
  // its platform.
  const children = platformChildren(manifest.bytes);
  if (children) {
    const added: Required<AddedContents> = { files: [], packages: [], platforms: children };
    for (const child of children) {
      const one = await readAddedContents(store, repository, child.digest, baseLayers);
      added.files.push(...one.files.map((f) => ({ ...f, platform: child.platform })));
      added.packages.push(...one.packages.map((p) => ({ ...p, platform: child.platform })));
    }
    return added;
  }
  const layers = (JSON.parse(Buffer.from(manifest.bytes).toString('utf8')) as { layers?: Descriptor[] })
    .layers;
  const files = await readFiles(store, repository, (layers ?? []).slice(baseLayers));
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

/** Later layers win, whiteouts remove (oci-image/read-layer.ts); regular files only are listed. */
async function readFiles(store: ImageStore, repository: string, layers: readonly Descriptor[]) {
  const read = [];
  for (const layer of layers)
    read.push(
      await readLayer(await store.getBlob(repository, layer.digest), {
        what: `${repository}'s layer ${layer.digest.slice(0, 19)}`,
        // The image's own layers, read whole as before: every file is hashed for the SBOM.
        maxBytes: Number.MAX_SAFE_INTEGER,
      }),
    );
  const files = new Map<string, Buffer>();
  for (const [path, node] of applyLayers(read)) if (node.type === 'file') files.set(path, node.content);
  return files;
}
