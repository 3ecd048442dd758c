import type { OciImageConfig } from '../oci-image/image-config.ts';
import {
  RESTAMPED_FROM,
  VERSION_LABEL,
  VERSION_LAYER_DIGEST_LABEL,
  versionEnvNames,
} from '../oci-image/version-layer.ts';

export interface RestampConfigInput {
  /** The release tag the image reports from now on. */
  version: string;
  /** The rc manifest digest the release is made from (written as a label). */
  from: string;
  /** The new version layer, when the image has one: it replaces the last diff ID. */
  versionLayer?: { digest: string; diffId: string };
  /** A new top layer (baked files rewritten, restamp-top-layer.ts): its diff ID and history line. */
  topLayer?: { diffId: string; createdBy: string };
}

/**
 * The release's config from the rc's: the version env variables that are set (SERVICE_VERSION,
 * SERVICE_CLIENT_VERSION and the service's own, which its version-env label names), the version label, the label naming the rc digest and, with a new
 * version layer, its digest label and the last diff ID. Nothing else changes: not `created`, not
 * the history, not any other variable or label; key order is kept. Pure.
 */
export function restampConfig(config: OciImageConfig, input: RestampConfigInput): OciImageConfig {
  const inner = config.config ?? {};
  const names = versionEnvNames(inner.Labels);
  const env = (inner.Env ?? []).map((line) => {
    const name = line.split('=')[0]!;
    return names.includes(name) ? `${name}=${input.version}` : line;
  });
  const labels: Record<string, string> = { ...(inner.Labels ?? {}) };
  if (VERSION_LABEL in labels) labels[VERSION_LABEL] = input.version;
  labels[RESTAMPED_FROM] = input.from;
  const diffIds = [...config.rootfs.diff_ids];
  if (input.versionLayer) {
    labels[VERSION_LAYER_DIGEST_LABEL] = input.versionLayer.digest;
    diffIds[diffIds.length - 1] = input.versionLayer.diffId;
  }
  if (input.topLayer) diffIds.push(input.topLayer.diffId);
  // A runtime pairs history entries with layers: a new layer gets its line where there is a history.
  const history =
    input.topLayer && config.history
      ? [...config.history, { created: config.created, created_by: input.topLayer.createdBy }]
      : config.history;
  return {
    ...config,
    config: { ...inner, ...(inner.Env ? { Env: env } : {}), Labels: sortKeys(labels) },
    rootfs: { ...config.rootfs, diff_ids: diffIds },
    ...(history ? { history } : {}),
  };
}

/** What the image reports as its version: the label, else a version env variable; undefined if none. */
export function versionOfConfig(config: OciImageConfig): string | undefined {
  const label = config.config?.Labels?.[VERSION_LABEL];
  if (label) return label;
  const names = versionEnvNames(config.config?.Labels);
  for (const line of config.config?.Env ?? []) {
    const [name, ...rest] = line.split('=');
    if (names.includes(name!)) return rest.join('=');
  }
  return undefined;
}

function sortKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
