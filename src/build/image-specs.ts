import type { ImageArtifactConfig } from '../config/artifacts-schema.ts';
import { type ImageSpec, rfc3339 } from '../engine/oci/image-config.ts';

export interface LabelInput {
  /** The image tag (`v1.2.3`, a describe string...). */
  tag: string;
  commit: string | null;
  /** Seconds since the epoch: SOURCE_DATE_EPOCH or the commit time; never the clock. */
  epoch: number;
  source: string;
  /** The image's name (`service-api`). */
  title: string;
  /** Labels of the toolkit's own beside the five OCI ones (the API's min_cli_version). */
  extra?: Record<string, string>;
}

/** The OCI annotation labels every image carries (image-spec annotations.md). */
export function imageLabels(input: LabelInput): Record<string, string> {
  return {
    'org.opencontainers.image.created': rfc3339(input.epoch),
    'org.opencontainers.image.revision': input.commit ?? 'unknown',
    'org.opencontainers.image.source': input.source,
    'org.opencontainers.image.title': input.title,
    'org.opencontainers.image.version': input.tag,
    ...input.extra,
  };
}

/**
 * The variable that carries the version into an artifact: the web client reads
 * `SERVICE_CLIENT_VERSION` (spec section 2); the API, the worker and any extra image read
 * `SERVICE_VERSION`. It is a build argument (docker) and an environment variable (oci).
 */
export function versionVariable(artifact: Pick<ImageArtifactConfig, 'role'>): string {
  return artifact.role === 'web' ? 'SERVICE_CLIENT_VERSION' : 'SERVICE_VERSION';
}

/**
 * What a daemonless recipe sets on top of its base: its entrypoint, command, folder, user and
 * ports, its environment with the version variable set to the tag, and the five labels.
 */
export function recipeSpec(artifact: ImageArtifactConfig, labels: LabelInput): ImageSpec {
  return {
    env: { ...(artifact.env ?? {}), [versionVariable(artifact)]: labels.tag },
    ...(artifact.entrypoint ? { entrypoint: artifact.entrypoint } : {}),
    ...(artifact.cmd ? { cmd: artifact.cmd } : {}),
    ...(artifact.workdir ? { workingDir: artifact.workdir } : {}),
    ...(artifact.user ? { user: artifact.user } : {}),
    ...(artifact.exposedPorts ? { exposedPorts: artifact.exposedPorts } : {}),
    labels: imageLabels(labels),
    created: rfc3339(labels.epoch),
    createdBy: `release build: ${(artifact.files ?? []).map((f) => `COPY ${f.from} ${f.to}`).join(', ')} (${artifact.name})`,
  };
}

/**
 * The build's fixed time: `SOURCE_DATE_EPOCH` when set (the reproducible-builds convention), else
 * the commit time from the release record, else 0. Never the clock, so a rebuild is identical.
 */
export function buildEpoch(env: Record<string, string | undefined>, commitTime: number | null): number {
  const fromEnv = env['SOURCE_DATE_EPOCH']?.trim();
  if (fromEnv && /^\d{1,12}$/.test(fromEnv)) return Number(fromEnv);
  return commitTime ?? 0;
}
