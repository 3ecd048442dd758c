import {
  connectDocker,
  DOCKERODE_MISSING,
  type DockerClient,
  dockerAnswers,
  dockerUnreachable,
} from '../docker-client/connect.ts';
import { isReleaseError } from '../errors.ts';
import { type DockerBuilder, findDockerBuilder } from './docker/docker-builder.ts';
import type { EngineName } from './engine.ts';

/** How long the default choice waits for a ping before falling back to the oci engine. */
const PING_MS = 2_000;

export interface EngineChoice {
  name: EngineName;
  /** Why (for the progress line and --json). */
  reason: string;
  docker?: DockerClient;
  /** The docker CLI that builds with BuildKit (docker engine only). */
  builder?: DockerBuilder;
}

/**
 * `--engine docker` needs an engine that answers (else ExternalError, exit 3) and a docker CLI that
 * builds with BuildKit (docker-builder.ts); `--engine oci` needs none. Without `--engine`: docker
 * when `DOCKER_HOST` (or the default socket) answers a ping and such a CLI is here, otherwise the
 * daemonless oci engine.
 */
export async function chooseEngine(
  requested: EngineName | undefined,
  env: Record<string, string | undefined>,
): Promise<EngineChoice> {
  if (requested === 'oci') return { name: 'oci', reason: '--engine oci' };
  let docker: DockerClient | undefined;
  let error: unknown;
  try {
    docker = connectDocker(env);
  } catch (caught) {
    if (requested === 'docker') throw caught;
    error = caught;
  }
  const answers = docker ? await dockerAnswers(docker, requested === 'docker' ? 10_000 : PING_MS) : false;
  if (requested === 'docker') {
    if (!answers || !docker) throw dockerUnreachable(env, error);
    const builder = await findDockerBuilder(env);
    return { name: 'docker', reason: `--engine docker, built with ${builder.description}`, docker, builder };
  }
  if (answers && docker) {
    const builder = await findDockerBuilder(env).catch((caught: unknown) => caught as Error);
    if (!(builder instanceof Error))
      return {
        name: 'docker',
        reason: `a Docker engine answered; built with ${builder.description}`,
        docker,
        builder,
      };
    return {
      name: 'oci',
      reason: `a Docker engine answered but ${builder.message.split('\n')[0]}; building without it`,
    };
  }
  return isReleaseError(error) && error.code === DOCKERODE_MISSING
    ? { name: 'oci', reason: 'dockerode is not installed; building without Docker' }
    : { name: 'oci', reason: 'no Docker engine answered; building without one' };
}
