import type { OciImageConfig } from '../../oci-image/image-config.ts';
import { hasVersionLayer } from '../../oci-image/version-layer.ts';
import { platformChildren } from '../../registry/platform-children.ts';
import type { ImageStore, Manifest } from '../../registry/store.ts';
import { readVersionLayerFiles } from '../../restamp/restamp-version-layer.ts';
import { archiveFiles } from '../../reversion/archive-files.ts';
import { compareRebuild } from '../../reversion/compare-rebuild.ts';

/**
 * What a release rebuilt from its rc's commit (a CLI archive, a bundle's baked files) cannot be
 * made again here: verify has no build and no checkout. The release's own copy stands when it is
 * the rc's modulo version strings (the proof the release made before it wrote it); otherwise the
 * re-stamp falls back to its default and the digests then differ.
 */
export interface RebuiltFileProof {
  reversionArchive: (path: string, rcArchive: Buffer) => Promise<Buffer | undefined>;
  rebuiltFile: (path: string, rcFile: Buffer) => Promise<Buffer>;
}

/**
 * The files of the release's version layer, by path (`/srv/x.tar.gz`), each path with its copies:
 * one for an image, one per platform child for an index (whose own manifest has no layers, while
 * its re-stamp re-makes every child). Empty without a version layer.
 */
export async function releaseVersionFiles(
  store: ImageStore,
  repository: string,
  release: { config: OciImageConfig; layers: string[] } | undefined,
  index?: Manifest,
): Promise<Map<string, Buffer[]>> {
  const out = new Map<string, Buffer[]>();
  const add = async (image: { config: OciImageConfig; layers: string[] } | undefined) => {
    if (!image || !hasVersionLayer(image.config.config?.Labels, image.layers)) return;
    for (const [path, bytes] of await readVersionLayerFiles(
      await store.getBlob(repository, image.layers.at(-1)!),
    ))
      out.set(path, [...(out.get(path) ?? []), bytes]);
  };
  await add(release);
  for (const child of (index && platformChildren(index.bytes)) ?? []) {
    const manifest = await store.getManifest(repository, child.digest);
    const json = manifest && (JSON.parse(Buffer.from(manifest.bytes).toString('utf8')) as ManifestJson);
    if (!json?.config || !json.layers) continue;
    const config = JSON.parse(
      Buffer.from(await store.getBlob(repository, json.config.digest)).toString('utf8'),
    ) as OciImageConfig;
    await add({ config, layers: json.layers.map((l) => l.digest) });
  }
  return out;
}

interface ManifestJson {
  config?: { digest: string };
  layers?: { digest: string }[];
}

/**
 * The release's own copy of each rebuilt or rewritten file, where it is the rc's modulo version
 * strings (of several platforms' copies, the one that proves); else the default re-stamp, and
 * the digests then differ.
 */
export function rebuiltFileProof(
  releaseFiles: Map<string, Buffer[]>,
  rcVersion: string | undefined,
  tag: string,
): RebuiltFileProof {
  return {
    async reversionArchive(path, rcArchive) {
      if (!rcVersion) return undefined;
      for (const mine of releaseFiles.get(path) ?? []) {
        try {
          const rcFiles = await archiveFiles(rcArchive, 'the rc archive');
          const equal = compareRebuild(
            rcFiles,
            await archiveFiles(mine, 'the release archive'),
            rcVersion,
            tag,
          );
          if (equal.equal) return mine;
        } catch {
          // not an archive this proof reads: the default re-stamp stands
        }
      }
      return undefined;
    },
    async rebuiltFile(path, rcFile) {
      const proven = (releaseFiles.get(path) ?? []).find(
        (mine) =>
          rcVersion &&
          compareRebuild(new Map([[path, rcFile]]), new Map([[path, mine]]), rcVersion, tag).equal,
      );
      return proven ?? rcFile; // the rc's copy then makes the layers differ: not re-stamped
    },
  };
}
