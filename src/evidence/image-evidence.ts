import { openBaseImage } from '../oci-image/base-image-reader.ts';
import type { StoreImageRef } from '../registry/image-ref.ts';
import type { ImageStore } from '../registry/store.ts';
import { readAddedContents } from './image-contents.ts';
import { type ProvenanceInput, provenanceStatement } from './provenance.ts';
import { sbomOf } from './sbom.ts';
import { sbomStatement } from './statements.ts';

/** The two statements about one image, unsigned: what is signed, attached and written to disk. */
export interface ImageEvidence {
  /** The CycloneDX document itself (also the predicate of `sbomStatement`). */
  sbom: string;
  sbomStatement: Buffer;
  provenanceStatement: Buffer;
}

/**
 * Read what the image holds from its layers in the store and make its SBOM and provenance. The
 * layers above the base's are the image's own: the base is named by digest, not listed file by
 * file (its own SBOM is its maker's to give).
 */
export async function imageEvidence(options: {
  store: ImageStore;
  open: (registry: string) => ImageStore;
  /** The configured base (opened from its store), or one the builder resolved and counted itself. */
  base: StoreImageRef | { text: string; digest: string; layers: number };
  provenance: Omit<ProvenanceInput, 'base'>;
  toolVersion: string;
}): Promise<ImageEvidence> {
  const { store, provenance } = options;
  let base: { digest: string };
  let baseLayers: number;
  if ('layers' in options.base && typeof options.base.layers === 'number') {
    base = { digest: options.base.digest };
    baseLayers = options.base.layers;
  } else {
    const opened = await openBaseImage(options.base as StoreImageRef, options.open);
    await opened.close(); // its config and layer list are read; a file's unpacked blobs are not needed
    base = opened.base;
    baseLayers = opened.base.config.rootfs?.diff_ids?.length ?? opened.base.layers.length;
  }
  const added = await readAddedContents(store, provenance.repository, provenance.digest, baseLayers);
  const sbom = sbomOf(
    {
      repository: provenance.repository,
      digest: provenance.digest,
      version: provenance.version,
      base: { reference: options.base.text, digest: base.digest },
      ...added,
    },
    { name: 'service-release', version: options.toolVersion },
  );
  return {
    sbom,
    sbomStatement: sbomStatement(provenance.repository, provenance.digest, sbom),
    provenanceStatement: provenanceStatement({
      ...provenance,
      base: { reference: options.base.text, digest: base.digest },
    }),
  };
}
