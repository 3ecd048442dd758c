import type { AdoptSource } from '../../adopt/adopt-sources.ts';
import type { CheckedImage } from '../../adopt/check-adopted.ts';
import type { AdoptedArtifact } from '../../adopt/map-adopted.ts';
import type { BaseContext } from '../../pipeline/context.ts';
import type { ReleaseRecord } from '../../record/release-record.ts';
import type { ImageStore } from '../../registry/store.ts';

export interface AdoptContext extends BaseContext {
  /** The arguments: metadata files and references, each optionally `<artifact>=`. */
  inputs: string[];
  recordPath: string;
  /** The config's registry: where the adopted digests must be, and where promote reads them. */
  store: ImageStore;
  /** `--key <path>` for the provenance's signature. */
  keyPath?: string;
  sources?: AdoptSource[];
  placed?: AdoptedArtifact[];
  record?: ReleaseRecord;
  /** The version adopted: the record's tag. */
  tag?: string;
  /** `build-<12 hex>`: the tag the adopted images get, as `release build` leaves its images. */
  buildTag?: string;
  source?: string;
  /** Per artifact: what the store holds under its digest. */
  checked: Record<string, CheckedImage>;
  /** What the evidence step did: where, and whether it was signed and attached (else why not). */
  evidence?: { dir: string; signed: boolean; reason?: string };
}
