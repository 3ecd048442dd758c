import { connectDocker, type DockerClient, dockerAnswers } from '../../../docker-client/connect.ts';
import { ExternalError } from '../../../errors.ts';
import type { UpgradeInput } from '../upgrade-input.ts';
import { dockerHostOf } from './docker-options.ts';

/** What a Docker engine's upgrade context adds: the engine it reads and changes the services on. */
export interface DockerEngineContext {
  /** `--docker-host`, else DOCKER_HOST, else the default socket. */
  dockerHost: string;
  docker: DockerClient;
}

/**
 * Connect to the Docker engine the flags name, and refuse at once (exit 3) when it does not
 * answer within 10 s: before anything is read, so a wrong host never looks like a failed upgrade.
 */
export async function openDockerEngine(input: UpgradeInput): Promise<DockerEngineContext> {
  const dockerHost = dockerHostOf(input.flags, input.base.env);
  const docker = connectDocker({ ...input.base.env, DOCKER_HOST: dockerHost });
  if (!(await dockerAnswers(docker, 10_000))) {
    throw new ExternalError('DOCKER_UNREACHABLE', `no Docker engine answers at ${dockerHost}`, {
      hint: 'point --docker-host at the engine: a Swarm manager, or the host of the Compose project (unix:///path or tcp://host:port)',
    });
  }
  return { dockerHost, docker };
}
