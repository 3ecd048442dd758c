import * as z from 'zod';
import { type Descriptor, MEDIA_TYPES } from './store.ts';

/**
 * The shapes of what an image store hands back (manifests, indexes, referrer lists, an OCI
 * layout's `index.json`), checked at the edge before anything reads a field: a registry or an
 * archive is outside data, and a `null`, a number where a list belongs or a digest such as
 * `sha256:../../x` must be a refusal naming the artifact, never a TypeError deep inside a command.
 * Unknown fields pass through (the specs allow them); the digests the toolkit acts on do not.
 */

/** The OCI distribution spec's guidance: registries may refuse larger manifests, and so do we. */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

const digest = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'is not a sha256 digest');
const annotations = z.record(z.string(), z.string());

// Descriptors must carry a media type (image-spec), but a missing one harms nothing we decide:
// the digest and size are what is checked.
export const descriptorSchema = z.looseObject({
  mediaType: z.string().max(255).optional(),
  digest,
  size: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  artifactType: z.string().max(255).optional(),
  annotations: annotations.optional(),
  platform: z
    .looseObject({ architecture: z.string(), os: z.string(), variant: z.string().optional() })
    .optional(),
});

export const indexSchema = z.looseObject({
  mediaType: z.string().optional(),
  manifests: z.array(descriptorSchema),
  annotations: annotations.optional(),
});

export const imageManifestSchema = z.looseObject({
  mediaType: z.string().optional(),
  artifactType: z.string().max(255).optional(),
  config: descriptorSchema.optional(),
  layers: z.array(descriptorSchema).optional(),
  subject: descriptorSchema.optional(),
  annotations: annotations.optional(),
});

export type ParsedIndex = z.infer<typeof indexSchema> & { manifests: Descriptor[] };
export type ParsedImageManifest = z.infer<typeof imageManifestSchema> & {
  config?: Descriptor;
  layers?: Descriptor[];
};

/** A manifest read as its media type says, or why it is not one (short, for a message). */
export type ParsedManifest =
  | { kind: 'index'; value: ParsedIndex }
  | { kind: 'image'; value: ParsedImageManifest }
  | { kind: 'invalid'; reason: string };

/** Parse manifest bytes as `mediaType` says: an index needs `manifests`, an image its blobs. */
export function parseManifestBytes(bytes: Uint8Array, mediaType: string): ParsedManifest {
  if (bytes.length > MAX_MANIFEST_BYTES)
    return { kind: 'invalid', reason: `${bytes.length} bytes, over the ${MAX_MANIFEST_BYTES}-byte limit` };
  const json = parseJson(bytes);
  if (json === undefined) return { kind: 'invalid', reason: 'not JSON' };
  if (mediaType === MEDIA_TYPES.ociIndex || mediaType === MEDIA_TYPES.dockerManifestList) {
    const result = indexSchema.safeParse(json);
    return result.success
      ? { kind: 'index', value: result.data as ParsedIndex }
      : { kind: 'invalid', reason: schemaReason(result.error) };
  }
  const result = imageManifestSchema.safeParse(json);
  return result.success
    ? { kind: 'image', value: result.data as ParsedImageManifest }
    : { kind: 'invalid', reason: schemaReason(result.error) };
}

/** An index's entries (a referrers list, a layout's `index.json`), or why they cannot be read. */
export function parseIndexJson(value: unknown): { manifests: Descriptor[] } | string {
  const result = indexSchema.safeParse(value);
  return result.success ? { manifests: result.data.manifests as Descriptor[] } : schemaReason(result.error);
}

/** JSON text to a value, or undefined: never throws. */
export function parseJson(bytes: Uint8Array | string): unknown {
  try {
    return JSON.parse(typeof bytes === 'string' ? bytes : Buffer.from(bytes).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** The first problem zod found, as `manifests.0.digest: is not a sha256 digest`. */
export function schemaReason(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'not a valid document';
  const path = issue.path.map(String).join('.');
  return `${path || 'the document'}: ${issue.message}`.slice(0, 200);
}
