import { probeWorkerDocker } from '../probes/worker-docker.ts';
import { dockerReader } from './docker-reader.ts';
import type { WorkerEngine } from './worker-engine.ts';

/**
 * A Compose project's containers of an image, running or not, found by Compose's project label;
 * its completed one-shot jobs read as done. Its engine is a Docker engine: the nodes are its.
 */
export const composeReader: WorkerEngine = {
  name: 'compose',
  runs: (target) => target.composeProject !== undefined,
  readImage: (target, request) =>
    request.wholeEngine
      ? dockerReader.readImage(target, request)
      : probeWorkerDocker({
          ...(target.host ? { host: target.host } : {}),
          image: request.image,
          ...(request.name ? { name: request.name } : {}),
          composeProject: target.composeProject!,
          ...(target.oneShots ? { oneShots: target.oneShots } : {}),
          ...(request.roles ? { roles: request.roles } : {}),
          ...(request.envNames ? { envNames: request.envNames } : {}),
          env: request.env,
          timeoutMs: request.timeoutMs,
        }),
  readApiPerNode: (target, apiUrl, request, http) =>
    dockerReader.readApiPerNode(target, apiUrl, request, http),
};
