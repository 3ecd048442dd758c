import type { AdoptSource } from '../../adopt/adopt-sources.ts';
import type { AdoptedRecord } from '../../record/release-record.ts';

/** Where an adopted digest came from, as the record and the provenance both keep it. */
export function adoptedOrigin(source: AdoptSource): AdoptedRecord['from'] {
  const { origin, image } = source;
  return {
    kind: origin.kind,
    ...(origin.file !== undefined ? { file: origin.file, sha256: origin.sha256! } : {}),
    ...(image.target !== undefined ? { target: image.target } : {}),
    names: image.names,
    ...(image.buildRef !== undefined ? { buildRef: image.buildRef } : {}),
    ...(image.buildxProvenance ? { buildxProvenance: true } : {}),
  };
}
