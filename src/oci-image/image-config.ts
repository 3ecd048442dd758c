import { type Descriptor, MEDIA_TYPES } from '../registry/store.ts';

/** What a build puts on top of its base. */
export interface ImageSpec {
  /** Set over the base's environment (same name replaces). */
  env: Record<string, string>;
  entrypoint?: string[];
  cmd?: string[];
  workingDir?: string;
  user?: string;
  exposedPorts?: string[];
  labels: Record<string, string>;
  /** RFC 3339, from the commit time or SOURCE_DATE_EPOCH; never the clock. */
  created: string;
  /** The history line of the added layer (`created_by`), or one per added layer. */
  createdBy: string | readonly string[];
  /**
   * Files (absolute paths in the image) that carry the version: the oci engine moves them into a
   * last layer of their own, the version layer a full release re-stamps (oci-image/version-layer.ts).
   */
  versionFiles?: readonly string[];
}

/** The parts of an OCI image config we read and write (image-spec config.md). */
export interface OciImageConfig {
  created?: string;
  architecture: string;
  os: string;
  variant?: string;
  config?: {
    User?: string;
    Env?: string[];
    Entrypoint?: string[] | null;
    Cmd?: string[] | null;
    WorkingDir?: string;
    ExposedPorts?: Record<string, object>;
    Labels?: Record<string, string>;
    [key: string]: unknown;
  };
  rootfs: { type: 'layers'; diff_ids: string[] };
  history?: { created?: string; created_by?: string; comment?: string; empty_layer?: boolean }[];
  [key: string]: unknown;
}

/**
 * The new image's config: the base's platform, environment and defaults, with the spec applied
 * and the new layers' diff IDs appended. Pure; keys are written in a fixed order.
 */
export function composeConfig(base: OciImageConfig, spec: ImageSpec, diffIds: string[]): OciImageConfig {
  const inherited = base.config ?? {};
  const env = new Map((inherited.Env ?? []).map((line) => [line.split('=')[0] ?? line, line]));
  for (const [key, value] of Object.entries(spec.env)) env.set(key, `${key}=${value}`);
  const ports = { ...(inherited.ExposedPorts ?? {}) };
  for (const port of spec.exposedPorts ?? []) ports[port.includes('/') ? port : `${port}/tcp`] = {};
  const config: NonNullable<OciImageConfig['config']> = {
    ...((spec.user ?? inherited.User) ? { User: spec.user ?? inherited.User } : {}),
    Env: [...env.values()],
    Entrypoint: spec.entrypoint ?? inherited.Entrypoint ?? null,
    Cmd: spec.cmd ?? (spec.entrypoint ? null : (inherited.Cmd ?? null)),
    WorkingDir: spec.workingDir ?? inherited.WorkingDir ?? '/',
    ...(Object.keys(ports).length ? { ExposedPorts: sortKeys(ports) } : {}),
    Labels: sortKeys({ ...(inherited.Labels ?? {}), ...spec.labels }),
  };
  return {
    created: spec.created,
    architecture: base.architecture,
    os: base.os,
    ...(base.variant ? { variant: base.variant } : {}),
    config,
    rootfs: { type: 'layers', diff_ids: [...base.rootfs.diff_ids, ...diffIds] },
    history: [
      ...(base.history ?? []),
      ...(typeof spec.createdBy === 'string' ? [spec.createdBy] : spec.createdBy).map((line) => ({
        created: spec.created,
        created_by: line,
      })),
    ],
  };
}

/** An OCI image manifest over a config and layers; the annotations name the base. */
export function composeManifest(
  config: Descriptor,
  layers: Descriptor[],
  annotations: Record<string, string> = {},
): {
  schemaVersion: 2;
  mediaType: string;
  config: Descriptor;
  layers: Descriptor[];
  annotations?: Record<string, string>;
} {
  return {
    schemaVersion: 2,
    mediaType: MEDIA_TYPES.ociManifest,
    config,
    layers,
    ...(Object.keys(annotations).length ? { annotations: sortKeys(annotations) } : {}),
  };
}

/** Docker's layer media types name the same bytes; an OCI manifest must use the OCI names. */
export function ociLayerMediaType(mediaType: string): string {
  if (mediaType === 'application/vnd.docker.image.rootfs.diff.tar.gzip') return MEDIA_TYPES.ociLayerGzip;
  if (mediaType === 'application/vnd.docker.image.rootfs.diff.tar')
    return 'application/vnd.oci.image.layer.v1.tar';
  return mediaType;
}

/** Seconds since the epoch to the RFC 3339 form used in configs and labels. */
export function rfc3339(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.000Z$/, 'Z');
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
