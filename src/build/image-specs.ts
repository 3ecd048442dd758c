import { rolesOfImage } from '../config/artifacts.ts';
import type { ImageArtifactConfig } from '../config/artifacts-schema.ts';
import type { ReleaseConfig } from '../config/schema.ts';
import { clientVersionVariables, serverVersionVariables } from '../config/version-variables.ts';
import { type ImageSpec, rfc3339 } from '../oci-image/image-config.ts';
import { VERSION_ENV, VERSION_ENV_LABEL } from '../oci-image/version-layer.ts';

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

type Variables = Pick<ReleaseConfig, 'artifacts'> & Partial<Pick<ReleaseConfig, 'versionVariables'>>;

/**
 * The variables an image's env carries its version in: the server names (`SERVICE_VERSION` and
 * `versionVariables.server`) when it runs an API, a worker or an extra role, the client names
 * when it runs the web client; both when one image runs both.
 */
export function imageVersionVariables(config: Variables, artifact: ImageArtifactConfig): string[] {
  const roles = rolesOfImage(config, artifact.image);
  const all = roles.length ? roles : [artifact];
  return [
    ...(all.some((a) => a.role !== 'web') ? serverVersionVariables(config) : []),
    ...(all.some((a) => a.role === 'web') ? clientVersionVariables(config) : []),
  ];
}

/**
 * The version build arguments of every image: every name, server and client (a Dockerfile that
 * builds its web client inside reads `ARG VITE_ACME_VERSION`; an unused one is harmless).
 */
export function versionBuildArgs(config: Variables, tag: string): Record<string, string> {
  const names = [...serverVersionVariables(config), ...clientVersionVariables(config)];
  return Object.fromEntries(names.map((name) => [name, tag]));
}

/**
 * The label naming the service's own version variables an image carries (restamp-config.ts
 * re-writes them in a release made from the rc); none when it carries only the standard ones.
 */
export function versionEnvLabel(names: readonly string[]): Record<string, string> {
  const own = names.filter((n) => !(VERSION_ENV as readonly string[]).includes(n));
  return own.length ? { [VERSION_ENV_LABEL]: own.join(',') } : {};
}

/**
 * What a daemonless recipe sets on top of its base: its entrypoint, command, folder, user and
 * ports, its environment with every version variable set to the tag (`imageVersionVariables`;
 * default, the artifact's standard one), and the five labels.
 */
export function recipeSpec(
  artifact: ImageArtifactConfig,
  labels: LabelInput,
  versionNames: readonly string[] = [versionVariable(artifact)],
): ImageSpec {
  return {
    env: { ...(artifact.env ?? {}), ...Object.fromEntries(versionNames.map((name) => [name, labels.tag])) },
    ...(artifact.entrypoint ? { entrypoint: artifact.entrypoint } : {}),
    ...(artifact.cmd ? { cmd: artifact.cmd } : {}),
    ...(artifact.workdir ? { workingDir: artifact.workdir } : {}),
    ...(artifact.user ? { user: artifact.user } : {}),
    ...(artifact.exposedPorts ? { exposedPorts: artifact.exposedPorts } : {}),
    labels: { ...imageLabels(labels), ...versionEnvLabel(versionNames) },
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
