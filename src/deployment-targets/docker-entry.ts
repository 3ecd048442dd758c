import { Option } from 'commander';
import { UsageError } from '../errors.ts';
import type { DeploymentEngineEntry } from './deployment-engine-entry.ts';

/** A Docker engine: the containers and Swarm services of an image (`--docker`, `--docker-host`). */
export const dockerEntry: DeploymentEngineEntry = {
  name: 'docker',
  title: 'a Docker engine (containers and Swarm services)',
  options: [
    new Option(
      '--docker',
      'read the worker from the Docker engine: containers and Swarm services of its image',
    ).conflicts('workerUrl'),
    new Option(
      '--docker-host <sock>',
      'the engine to read (unix:///path or tcp://host:port; implies --docker)',
    ).conflicts('workerUrl'),
    new Option(
      '--url-per-node',
      "with --docker on a Swarm manager: also read the API's version on every node's address (--url's scheme, port and path)",
    ),
  ],
  refuse: (flags, { code, command }) =>
    flags['urlPerNode'] && !flags['docker'] && !flags['dockerHost']
      ? new UsageError(
          `${code}_URL_PER_NODE`,
          '--url-per-node reads the nodes from a Swarm manager: it needs --docker or --docker-host',
          {
            hint: `release ${command} --url http://node1:8080 --docker-host unix:///var/run/docker.sock --url-per-node`,
          },
        )
      : undefined,
  fromFlags: async (flags) => {
    const host = flags['dockerHost'] as string | undefined;
    if (!flags['docker'] && !host) return undefined;
    return {
      engine: { name: 'docker', ...(host ? { host } : {}) },
      ...(flags['urlPerNode'] ? { urlPerNode: true } : {}),
    };
  },
  reader: async () => (await import('../verify/engines/docker-reader.ts')).dockerReader,
};
