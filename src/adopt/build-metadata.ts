import { MEDIA_TYPES } from '../registry/store.ts';
import { printable } from '../text/printable.ts';

/**
 * What a project's own CI says it pushed, read from the metadata file buildx writes: `docker
 * buildx build --metadata-file` (one build: `containerimage.digest`, `containerimage.descriptor`,
 * `image.name`, `buildx.build.ref`...) or `docker buildx bake --metadata-file` (one such object
 * per target, beside `buildx.build.warnings`). Pure: text in, images or a refusal out.
 */
export interface AdoptedImage {
  /** The manifest (or index) digest pushed. */
  digest: string;
  /** The names it was pushed under (`image.name`, comma-separated there), as written. */
  names: string[];
  /** bake: the target it came from. */
  target?: string;
  /** `containerimage.descriptor.mediaType`, when the metadata gives it. */
  mediaType?: string;
  /** `buildx.build.ref`: the builder's reference of the build (`builder/node/ref`). */
  buildRef?: string;
  /** Whether buildx recorded its own provenance beside it (`buildx.build.provenance`, or one per platform). */
  buildxProvenance?: boolean;
}

export type MetadataKind = 'buildx-metadata' | 'bake-metadata';

export interface ParsedMetadata {
  kind: MetadataKind;
  images: AdoptedImage[];
  /** bake targets that pushed no image (a test or lint target, `--load` only): named, not adopted. */
  withoutImage: string[];
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const IMAGE_TYPES = new Set<string>([
  MEDIA_TYPES.ociManifest,
  MEDIA_TYPES.ociIndex,
  MEDIA_TYPES.dockerManifest,
  MEDIA_TYPES.dockerManifestList,
]);
/** A name as a registry takes it: `[host[:port]/]path[:tag][@digest]`, printable, bounded. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,510}$/;
const MAX_TARGETS = 256;

/** Parse a metadata file's text; a string is why it is refused (the caller names the file). */
export function parseBuildMetadata(text: string): ParsedMetadata | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `not JSON (${printable((error as Error).message, { max: 120 })})`;
  }
  if (!isObject(value)) return 'expected a JSON object, as buildx --metadata-file writes';
  if ('containerimage.digest' in value || 'containerimage.descriptor' in value) {
    const image = imageOf(value);
    return typeof image === 'string' ? image : { kind: 'buildx-metadata', images: [image], withoutImage: [] };
  }
  // bake: every key but buildx's own (`buildx.build.warnings`) is a target holding one build's metadata.
  const targets = Object.entries(value).filter(([key]) => !key.startsWith('buildx.'));
  if (targets.length === 0)
    return 'no containerimage.digest and no bake target: was the image pushed (--push, or an output with push=true)?';
  if (targets.length > MAX_TARGETS) return `${targets.length} bake targets, more than ${MAX_TARGETS}`;
  const images: AdoptedImage[] = [];
  const withoutImage: string[] = [];
  for (const [target, entry] of targets) {
    const name = printable(target, { max: 80 });
    if (!isObject(entry)) return `bake target "${name}" is not an object`;
    if (!('containerimage.digest' in entry) && !('containerimage.descriptor' in entry)) {
      withoutImage.push(name);
      continue;
    }
    const image = imageOf(entry);
    if (typeof image === 'string') return `bake target "${name}": ${image}`;
    images.push({ ...image, target });
  }
  return { kind: 'bake-metadata', images, withoutImage };
}

function imageOf(entry: Record<string, unknown>): AdoptedImage | string {
  const digest = entry['containerimage.digest'];
  const descriptor = entry['containerimage.descriptor'];
  if (descriptor !== undefined && !isObject(descriptor)) return 'containerimage.descriptor is not an object';
  const described = descriptor?.['digest'];
  const chosen = digest ?? described;
  if (typeof chosen !== 'string' || !DIGEST.test(chosen))
    return `containerimage.digest is not a sha256 digest (${printable(String(chosen), { max: 80 })})`;
  if (described !== undefined && described !== chosen)
    return `containerimage.descriptor names ${printable(String(described), { max: 80 })}, containerimage.digest ${chosen}`;
  const mediaType = descriptor?.['mediaType'];
  if (mediaType !== undefined && (typeof mediaType !== 'string' || !IMAGE_TYPES.has(mediaType)))
    return `containerimage.descriptor is a ${printable(String(mediaType), { max: 80 })}, not an image or an index`;
  const rawNames = entry['image.name'];
  if (rawNames !== undefined && typeof rawNames !== 'string') return 'image.name is not a string';
  const names = (rawNames ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const bad = names.find((name) => !NAME.test(name));
  if (bad !== undefined) return `image.name holds "${printable(bad, { max: 80 })}", not an image name`;
  const buildRef = entry['buildx.build.ref'];
  return {
    digest: chosen,
    names,
    ...(typeof mediaType === 'string' ? { mediaType } : {}),
    ...(typeof buildRef === 'string' && buildRef.length <= 512 ? { buildRef: printable(buildRef) } : {}),
    // One build of several platforms records one provenance per platform instead
    // (`buildx.build.provenance/linux/arm64`), and no `buildx.build.provenance` at all.
    ...(Object.keys(entry).some((key) => /^buildx\.build\.provenance(\/|$)/.test(key) && entry[key] != null)
      ? { buildxProvenance: true }
      : {}),
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
