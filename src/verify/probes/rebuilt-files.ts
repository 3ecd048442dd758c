import type { OciImageConfig } from '../../engine/oci/image-config.ts';
import { hasVersionLayer } from '../../engine/oci/version-layer.ts';
import type { ImageStore } from '../../registry/store.ts';
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

/** The files of the release's version layer, by path (`/srv/x.tar.gz`); empty without one. */
export async function releaseVersionFiles(
  store: ImageStore,
  repository: string,
  release: { config: OciImageConfig; layers: string[] } | undefined,
): Promise<Map<string, Buffer>> {
  if (!release || !hasVersionLayer(release.config.config?.Labels, release.layers)) return new Map();
  return readVersionLayerFiles(await store.getBlob(repository, release.layers.at(-1)!));
}

export function rebuiltFileProof(
  releaseFiles: Map<string, Buffer>,
  rcVersion: string | undefined,
  tag: string,
): RebuiltFileProof {
  return {
    async reversionArchive(path, rcArchive) {
      const mine = releaseFiles.get(path);
      if (!mine || !rcVersion) return undefined;
      try {
        const rcFiles = await archiveFiles(rcArchive, 'the rc archive');
        const equal = compareRebuild(
          rcFiles,
          await archiveFiles(mine, 'the release archive'),
          rcVersion,
          tag,
        );
        return equal.equal ? mine : undefined;
      } catch {
        return undefined;
      }
    },
    async rebuiltFile(path, rcFile) {
      const mine = releaseFiles.get(path);
      const proven =
        mine &&
        rcVersion &&
        compareRebuild(new Map([[path, rcFile]]), new Map([[path, mine]]), rcVersion, tag).equal;
      return proven ? mine : rcFile; // the rc's copy then makes the layers differ: not re-stamped
    },
  };
}
