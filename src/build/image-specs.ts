import type { ImageArtifact } from '../config/schema.ts';
import { type ImageSpec, rfc3339 } from '../engine/oci/image-config.ts';

/** Where the artifact's files go in its image; the staged `app/` directory is copied here. */
export const APP_DIR = '/app';
/** node in the base image (the minimal base and the official node images agree on it). */
export const NODE_BIN = '/usr/local/bin/node';
/** nobody: the services need no privileges and write nothing. */
export const IMAGE_USER = '65534:65534';

export interface LabelInput {
  /** The image tag (`v1.2.3`, a describe string...). */
  tag: string;
  commit: string | null;
  /** Seconds since the epoch: SOURCE_DATE_EPOCH or the commit time; never the clock. */
  epoch: number;
  source: string;
  /** The image's name (`service-api`). */
  title: string;
}

/** The OCI annotation labels every image carries (image-spec annotations.md). */
export function imageLabels(input: LabelInput): Record<string, string> {
  return {
    'org.opencontainers.image.created': rfc3339(input.epoch),
    'org.opencontainers.image.revision': input.commit ?? 'unknown',
    'org.opencontainers.image.source': input.source,
    'org.opencontainers.image.title': input.title,
    'org.opencontainers.image.version': input.tag,
  };
}

/**
 * What each image sets on top of its base. The Dockerfiles in `templates/docker/` say the same for
 * the docker engine (a docker-engine test compares the two). Listening on 0.0.0.0 inside a
 * container is what makes a published port reachable; tests override HOST and the ports.
 */
export function imageSpec(artifact: ImageArtifact, labels: LabelInput): ImageSpec {
  const common = {
    entrypoint: [NODE_BIN],
    cmd: [`${APP_DIR}/main.mjs`],
    workingDir: APP_DIR,
    user: IMAGE_USER,
    labels: imageLabels(labels),
    created: rfc3339(labels.epoch),
    createdBy: `release build: COPY app/ ${APP_DIR}/ (${artifact})`,
  };
  switch (artifact) {
    case 'api':
      return {
        ...common,
        env: {
          SERVICE_VERSION: labels.tag,
          SERVICE_CLI_ARCHIVE: `${APP_DIR}/service-cli.tar.gz`,
          HOST: '0.0.0.0',
          PORT: '8080',
        },
        exposedPorts: ['8080/tcp'],
      };
    case 'worker':
      return {
        ...common,
        env: { SERVICE_VERSION: labels.tag, WORKER_HEALTH_HOST: '0.0.0.0', WORKER_HEALTH_PORT: '8081' },
        exposedPorts: ['8081/tcp'],
      };
    case 'web':
      return {
        ...common,
        env: {
          SERVICE_CLIENT_VERSION: labels.tag,
          WEB_ROOT: `${APP_DIR}/web`,
          HOST: '0.0.0.0',
          PORT: '8080',
        },
        exposedPorts: ['8080/tcp'],
      };
  }
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
