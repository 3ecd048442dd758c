import { probeApiPerNode } from '../probes/api-per-node.ts';
import { probeWorkerDocker } from '../probes/worker-docker.ts';
import type { WorkerEngine } from './worker-engine.ts';

/** The engine's containers and Swarm services of an image (`--docker`, `--docker-host`). */
export const dockerReader: WorkerEngine = {
  name: 'docker',
  runs: () => true,
  readImage: (target, request) =>
    probeWorkerDocker({
      ...(target.host ? { host: target.host } : {}),
      image: request.image,
      ...(request.name ? { name: request.name } : {}),
      ...(request.roles ? { roles: request.roles } : {}),
      ...(request.envNames ? { envNames: request.envNames } : {}),
      env: request.env,
      timeoutMs: request.timeoutMs,
    }),
  readApiPerNode: (target, apiUrl, request, http) =>
    probeApiPerNode(
      apiUrl,
      { ...(target.host ? { host: target.host } : {}), env: request.env, timeoutMs: request.timeoutMs },
      http,
    ),
};
