import { SIGNATURE_SUFFIX } from '../archives/archive-signature.ts';

/**
 * How an image says which of its parts carry its version, so a full release can be made from an
 * rc by rewriting only those parts: the config (the env variables and labels below)
 * and, when the artifact reads its version from files, one small *version layer*.
 *
 * The version layer is the image's last layer. Two labels mark it: `…version-layer.files` lists
 * the paths it holds (comma-separated, absolute), `…version-layer.digest` names its blob digest.
 * Promote rewrites it only when the last layer's digest equals that label (so a layer added on
 * top later is never mistaken for it) and it holds only the listed files; without the labels only
 * the config changes. The oci engine writes both labels (`src/build-engines/oci/oci-engine.ts`); the
 * docker engine's images (templates/docker) carry the files label only, as a Dockerfile cannot
 * know a layer digest, and there the last layer's content check is what guards.
 */
export const VERSION_LAYER_FILES_LABEL = 'org.service-release.version-layer.files';
export const VERSION_LAYER_DIGEST_LABEL = 'org.service-release.version-layer.digest';

/** Label and manifest annotation of a re-stamped image: the rc manifest digest it was made from. */
export const RESTAMPED_FROM = 'org.service-release.restamped-from';

/** The OCI label every image carries with its version. */
export const VERSION_LABEL = 'org.opencontainers.image.version';

/** Environment variables the reference artifacts read their version from (spec section 9). */
export const VERSION_ENV = ['SERVICE_VERSION', 'SERVICE_CLIENT_VERSION'] as const;

/**
 * The service's own version variables the image's env carries (`versionVariables`, comma-separated):
 * the build writes the label, so a release made from the rc re-writes them from the image alone.
 */
export const VERSION_ENV_LABEL = 'org.service-release.version-env';

/** Every env name that carries the image's version: the standard ones and those its label lists. */
export function versionEnvNames(labels: Record<string, string> | undefined): string[] {
  const own = (labels?.[VERSION_ENV_LABEL] ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n));
  return [...new Set([...VERSION_ENV, ...own])];
}

/** The paths of a version-layer files label; empty when absent or blank. */
export function versionLayerFiles(labels: Record<string, string> | undefined): string[] {
  const raw = labels?.[VERSION_LAYER_FILES_LABEL] ?? '';
  return raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

/**
 * Whether the image's last layer is its version layer: the files label is set and, when the
 * digest label is there too (oci engine), it names that layer. Docker builds carry only the files
 * label; re-stamping then checks the layer holds exactly those files.
 */
export function hasVersionLayer(
  labels: Record<string, string> | undefined,
  layers: readonly string[],
): boolean {
  if (versionLayerFiles(labels).length === 0 || layers.length === 0) return false;
  const digest = labels?.[VERSION_LAYER_DIGEST_LABEL];
  return digest === undefined || digest === layers.at(-1);
}

/**
 * The signatures that travel with the listed files unlisted: `<archive>.sig` beside a listed CLI
 * archive (`*.tar.gz`, `*.tgz`), written by a build that signed it. A Dockerfile copies it with a
 * wildcard (`COPY service-cli.tar.gz* /app/`) only when the build signed, so no fixed label could
 * name it; it belongs in the version layer because a re-stamped archive needs a new signature.
 */
export function companionSignatures(files: readonly string[]): string[] {
  return files.filter(isArchivePath).map((file) => `${file}${SIGNATURE_SUFFIX}`);
}

export function isArchivePath(path: string): boolean {
  return path.endsWith('.tar.gz') || path.endsWith('.tgz');
}

/**
 * Split entries into the code (everything else) and the version files named in `files`, with
 * their companion signatures when present.
 */
export function splitVersionFiles<T extends { path: string; type: string }>(
  entries: readonly T[],
  files: readonly string[],
): { code: T[]; version: T[] } {
  const wanted = new Set([...files, ...companionSignatures(files)]);
  const version = entries.filter((e) => e.type !== 'dir' && wanted.has(e.path));
  const missing = files.filter((f) => !version.some((e) => e.path === f));
  if (missing.length) throw new Error(`version files not staged: ${missing.join(', ')}`);
  return { code: entries.filter((e) => !version.includes(e)), version };
}
