import { versionEnv } from '../config/version-variables.ts';
import type { OciImageConfig } from '../oci-image/image-config.ts';
import { VERSION_LABEL, versionEnvNames } from '../oci-image/version-layer.ts';
import { MAX_MANIFEST_BYTES, parseJson, parseManifestBytes } from '../registry/oci-schema.ts';
import { platformName } from '../registry/platform-children.ts';
import { type Descriptor, type ImageStore, MEDIA_TYPES } from '../registry/store.ts';
import { printable } from '../text/printable.ts';
import { sameTag } from '../version/compare.ts';
import { parseVersion } from '../version/parse.ts';

/** What the store holds under an adopted digest, once checked. */
export interface CheckedImage {
  digest: string;
  mediaType: string;
  /** An index: its platform images (`linux/amd64`), in order. */
  platforms: string[];
  /** Every manifest checked: the image itself, and each child of an index (attestations included). */
  manifests: number;
  /** The version each place that says one says (`label org.opencontainers.image.version`). */
  versions: { where: string; value: string }[];
}

export type CheckOutcome =
  | { ok: true; image: CheckedImage; warnings: string[] }
  | { ok: false; missing: boolean; reason: string };

const IMAGE_CONFIGS = new Set([MEDIA_TYPES.ociConfig, 'application/vnd.docker.container.image.v1+json']);
const INDEXES = new Set<string>([MEDIA_TYPES.ociIndex, MEDIA_TYPES.dockerManifestList]);
const IMAGES = new Set<string>([MEDIA_TYPES.ociManifest, MEDIA_TYPES.dockerManifest]);

/**
 * Check an adopted digest in the store before the record names it: the manifest exists and is
 * an image or an index (for an index, every child exists, and every platform child is an image),
 * and the version its configs carry (the version label, the version variables in the env) is the
 * record's where it names one. A release or rc version other than the record's refuses (the image
 * was built as another version: promoting it under this one would make its own env lie); any other
 * value (a branch name, `main`, a dev description) and no version at all are warnings.
 */
export async function checkAdopted(
  store: ImageStore,
  repository: string,
  digest: string,
  expected: { tag: string; config: Parameters<typeof versionEnv>[0]; mediaType?: string },
): Promise<CheckOutcome> {
  const refuse = (reason: string, missing = false): CheckOutcome => ({ ok: false, missing, reason });
  const top = await store.getManifest(repository, digest);
  if (!top) return refuse(`${repository}@${digest} is not in ${store.name}`, true);
  const mediaType = top.descriptor.mediaType;
  if (expected.mediaType && expected.mediaType !== mediaType)
    return refuse(`the metadata says a ${expected.mediaType}, the store holds a ${printable(mediaType)}`);
  const names = [...new Set([...versionEnvNamesOf(expected.config)])];
  const versions: CheckedImage['versions'] = [];
  const platforms: string[] = [];
  let manifests = 1;
  if (INDEXES.has(mediaType)) {
    const parsed = parseManifestBytes(top.bytes, mediaType);
    if (parsed.kind !== 'index') return refuse(`its index cannot be read: ${reasonOf(parsed)}`);
    for (const child of parsed.value.manifests as Descriptor[]) {
      manifests++;
      const attestation =
        child.platform?.os === 'unknown' || child.annotations?.['vnd.docker.reference.type'];
      if (attestation) {
        // buildx's attestation manifests: they must be there, nothing runs them.
        if (!(await store.resolve(repository, child.digest)))
          return refuse(`its attestation manifest ${child.digest} is not in ${store.name}`, true);
        continue;
      }
      const platform = child.platform ? platformName(child.platform) : child.digest.slice(0, 19);
      const image = await imageAt(store, repository, child.digest, names);
      if (typeof image === 'string')
        return refuse(`its ${platform} child ${child.digest} ${image}`, /not in/.test(image));
      platforms.push(platform);
      versions.push(...image.map((v) => ({ ...v, where: `${platform} ${v.where}` })));
    }
    if (platforms.length === 0) return refuse('its index holds no platform image');
  } else if (IMAGES.has(mediaType)) {
    const image = await imageAt(store, repository, digest, names, top.bytes);
    if (typeof image === 'string') return refuse(`it ${image}`);
    versions.push(...image);
  } else {
    return refuse(`it is a ${printable(mediaType)}, not an image or an index`);
  }
  const warnings: string[] = [];
  const other = versions.filter((v) => !sameTag(v.value, expected.tag));
  const clash = other.find((v) => ['release', 'rc'].includes(parseVersion(v.value).kind));
  if (clash)
    return refuse(
      `its ${clash.where} says ${printable(clash.value)}, not ${expected.tag}: it was built as another version`,
    );
  for (const v of other)
    warnings.push(`its ${v.where} says ${printable(v.value, { max: 80 })}, not ${expected.tag}`);
  if (versions.length === 0)
    warnings.push(
      `it carries no version (no ${VERSION_LABEL} label, no ${names.join(', ')} in its env): pass the version to its build (docs/guides/ci.md)`,
    );
  return {
    ok: true,
    image: { digest, mediaType, platforms, manifests, versions },
    warnings,
  };
}

/** The versions an image manifest's config states, or why it is not an image. */
async function imageAt(
  store: ImageStore,
  repository: string,
  digest: string,
  names: readonly string[],
  known?: Uint8Array,
): Promise<{ where: string; value: string }[] | string> {
  const manifest = known
    ? { bytes: known, descriptor: { mediaType: MEDIA_TYPES.ociManifest } }
    : await store.getManifest(repository, digest);
  if (!manifest) return `is not in ${store.name}`;
  if (!known && !IMAGES.has(manifest.descriptor.mediaType))
    return `is a ${printable(manifest.descriptor.mediaType)}, not an image`;
  const parsed = parseManifestBytes(manifest.bytes, MEDIA_TYPES.ociManifest);
  if (parsed.kind !== 'image' || !parsed.value.config) return `has no image config`;
  const config = parsed.value.config;
  if (config.mediaType && !IMAGE_CONFIGS.has(config.mediaType))
    return `is an artifact (${printable(config.mediaType)}), not an image`;
  if (config.size > MAX_MANIFEST_BYTES) return `has a ${config.size}-byte config, over the limit`;
  const json = parseJson(await store.getBlob(repository, config.digest, MAX_MANIFEST_BYTES)) as
    | OciImageConfig
    | undefined;
  if (!json || typeof json !== 'object') return 'has an image config that is not JSON';
  const inner = (json.config ?? {}) as OciImageConfig['config'] & object;
  const labels = isStringRecord(inner.Labels) ? inner.Labels : {};
  const found: { where: string; value: string }[] = [];
  if (labels[VERSION_LABEL]) found.push({ where: `label ${VERSION_LABEL}`, value: labels[VERSION_LABEL] });
  const envNames = new Set([...names, ...versionEnvNames(labels)]);
  for (const line of Array.isArray(inner.Env) ? inner.Env : []) {
    if (typeof line !== 'string') continue;
    const eq = line.indexOf('=');
    const name = line.slice(0, eq);
    if (eq > 0 && envNames.has(name) && line.slice(eq + 1))
      found.push({ where: `env ${name}`, value: line.slice(eq + 1) });
  }
  return found;
}

function versionEnvNamesOf(config: Parameters<typeof versionEnv>[0]): string[] {
  return Object.keys(versionEnv(config, 'x'));
}

function reasonOf(parsed: { kind: string; reason?: string }): string {
  return parsed.reason ?? parsed.kind;
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === 'object' && value !== null && Object.values(value).every((v) => typeof v === 'string')
  );
}
