import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ARTIFACT_NAME } from '../config/constants.ts';
import { UsageError } from '../errors.ts';
import { printable } from '../text/printable.ts';
import { type AdoptedImage, type MetadataKind, parseBuildMetadata } from './build-metadata.ts';

/** Where an adopted digest came from, as the record keeps it. */
export interface AdoptOrigin {
  kind: MetadataKind | 'reference';
  /** The metadata file as given (relative to where release ran), and the SHA-256 of its bytes. */
  file?: string;
  sha256?: string;
}

/** One image handed over, with what the user said about it. */
export interface AdoptSource {
  origin: AdoptOrigin;
  image: AdoptedImage;
  /** `api=<file|ref>`: the artifact it is, said outright (else found by its image name). */
  artifact?: string;
  /** `api=<name>:<tag>`: a tag to resolve in the registry once (a reference given without a digest). */
  tag?: string;
}

/**
 * A metadata file is outside data: at most this many bytes are read (buildx's own provenance in
 * `mode=max` is the largest part of one, and stays far below it).
 */
export const MAX_METADATA_BYTES = 8 * 1024 * 1024;
/** A reference handed over as it is: `[artifact=]<host>/<repository>(@sha256:<hex>|:<tag>)`. */
const REFERENCE =
  /^[a-z0-9.-]+(?::\d{1,5})?\/[a-z0-9._/-]+(?:@sha256:[0-9a-f]{64}|:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})$/;

const HINT =
  'give buildx --metadata-file output, a bake --metadata-file output, or <artifact>=<registry>/<image>@sha256:<hex>';

/**
 * Read what `release adopt` was given: each argument a metadata file or an image reference,
 * optionally preceded by `<artifact>=`. Every refusal is a usage error (exit 2) naming the argument,
 * raised before anything is read from a registry or written.
 */
export async function readAdoptSources(args: readonly string[], cwd: string): Promise<AdoptSource[]> {
  if (args.length === 0)
    throw new UsageError('ADOPT_NOTHING', 'nothing to adopt: give a metadata file or a reference', {
      hint: HINT,
    });
  const sources: AdoptSource[] = [];
  for (const arg of args) {
    const eq = arg.indexOf('=');
    const named = eq > 0 && ARTIFACT_NAME.test(arg.slice(0, eq)) ? arg.slice(0, eq) : undefined;
    const value = named ? arg.slice(eq + 1) : arg;
    const artifact = named ? { artifact: named } : {};
    if (REFERENCE.test(value)) {
      const at = value.lastIndexOf('@');
      const colon = value.lastIndexOf(':');
      sources.push(
        at > 0
          ? {
              origin: { kind: 'reference' },
              image: { digest: value.slice(at + 1), names: [value] },
              ...artifact,
            }
          : {
              origin: { kind: 'reference' },
              image: { digest: '', names: [value] },
              tag: value.slice(colon + 1),
              ...artifact,
            },
      );
      continue;
    }
    const bytes = await readBounded(resolve(cwd, value), value);
    const parsed = parseBuildMetadata(bytes.toString('utf8'));
    if (typeof parsed === 'string')
      throw new UsageError('ADOPT_METADATA_INVALID', `${printable(value)}: ${parsed}`, { hint: HINT });
    if (named && parsed.images.length !== 1)
      throw new UsageError(
        'ADOPT_METADATA_INVALID',
        `${printable(arg)}: names one artifact, but the file holds ${parsed.images.length} images (${parsed.images.map((i) => i.target).join(', ')})`,
        {
          hint: 'map a bake file by its image names (each target pushed to <registry>/<image>), without <artifact>=',
        },
      );
    if (parsed.images.length === 0)
      throw new UsageError(
        'ADOPT_METADATA_INVALID',
        `${printable(value)}: no target pushed an image (${parsed.withoutImage.join(', ')})`,
        { hint: HINT },
      );
    const origin: AdoptOrigin = {
      kind: parsed.kind,
      file: value,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    };
    for (const image of parsed.images) sources.push({ origin, image, ...artifact });
  }
  return sources;
}

/** The file's bytes, refused past MAX_METADATA_BYTES without reading more (a pipe included). */
async function readBounded(path: string, given: string): Promise<Buffer> {
  const handle = await open(path, 'r').catch((error: NodeJS.ErrnoException) => {
    throw new UsageError(
      'ADOPT_INPUT_UNREADABLE',
      `${printable(given)} is neither a readable file (${printable(error.code ?? error.message)}) nor an image reference`,
      { hint: HINT },
    );
  });
  try {
    const buffer = Buffer.alloc(MAX_METADATA_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_METADATA_BYTES)
        throw new UsageError(
          'ADOPT_METADATA_INVALID',
          `${printable(given)} is larger than ${MAX_METADATA_BYTES} bytes: not a buildx metadata file`,
          { hint: HINT },
        );
    }
    return buffer.subarray(0, length);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(
      'ADOPT_INPUT_UNREADABLE',
      `cannot read ${printable(given)}: ${printable((error as NodeJS.ErrnoException).code ?? (error as Error).message)}`,
      { hint: HINT },
    );
  } finally {
    await handle.close();
  }
}
