import type { RoleCommand } from '../config/role-of-command.ts';
import type { EngineTarget } from '../deployment-engines/engine-target.ts';
import type { HttpProbeOptions } from '../version-endpoint/api-version.ts';
import { probeApiPerNode } from './probes/api-per-node.ts';
import { probeWorkerDocker } from './probes/worker-docker.ts';
import type { ArtifactName, ProbeResult } from './types.ts';

export type { EngineTarget } from '../deployment-engines/engine-target.ts';

/** What to read of one image on a deployment's engine. */
export interface ImageReadingRequest {
  /** The image's repository (`artifacts.<name>.image`). */
  image: string;
  /** Which artifact the image is (default worker): `--registry` also reads API and web digests. */
  name?: ArtifactName;
  /** The roles run from the image: with more than one, a reading per role. */
  roles?: readonly RoleCommand[];
  /** The variables the version may be in, the service's own first. */
  envNames?: readonly string[];
  /**
   * Every container and service of the image on the engine, not only the deployment's Compose
   * project's: `--registry`'s extra images are read so.
   */
  wholeEngine?: boolean;
  env: Record<string, string | undefined>;
  timeoutMs: number;
}

/**
 * One engine verify reads deployments from. A new engine is one entry of `WORKER_ENGINES`: how to
 * tell a target it runs, how to read an image's workloads there, and (an engine with nodes) the
 * API on each node's address.
 */
export interface WorkerEngine {
  name: string;
  /** Whether this engine runs the deployment; the first entry that does reads it. */
  runs(target: EngineTarget): boolean;
  /** Every reading of the image the deployment runs: one with `error` when none, or unreachable. */
  readImage(target: EngineTarget, request: ImageReadingRequest): Promise<ProbeResult[]>;
  /** `--url-per-node`: the API's version endpoint on each node's own address. */
  readApiPerNode(
    target: EngineTarget,
    apiUrl: string,
    request: Pick<ImageReadingRequest, 'env' | 'timeoutMs'>,
    http: HttpProbeOptions,
  ): Promise<ProbeResult[]>;
}

/** The engine's containers and Swarm services of an image (`--docker`, `--docker-host`). */
const docker: WorkerEngine = {
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

/**
 * A Compose project's containers of an image, running or not, found by Compose's project label;
 * its completed one-shot jobs read as done. Its engine is a Docker engine: the nodes are its.
 */
const compose: WorkerEngine = {
  name: 'compose',
  runs: (target) => target.composeProject !== undefined,
  readImage: (target, request) =>
    request.wholeEngine
      ? docker.readImage(target, request)
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
  readApiPerNode: (target, apiUrl, request, http) => docker.readApiPerNode(target, apiUrl, request, http),
};

/** The engines verify and watch read deployments from, the most specific first. */
export const WORKER_ENGINES: readonly WorkerEngine[] = [compose, docker];

/** A deployment's engine, bound to where the deployment is on it. */
export interface DeploymentEngine {
  name: string;
  readImage(request: ImageReadingRequest): Promise<ProbeResult[]>;
  readApiPerNode(
    apiUrl: string,
    request: Pick<ImageReadingRequest, 'env' | 'timeoutMs'>,
    http: HttpProbeOptions,
  ): Promise<ProbeResult[]>;
}

/** The engine a target is read from, or undefined when it names none (`--worker-url` only, say). */
export function deploymentEngine(target: { docker?: EngineTarget }): DeploymentEngine | undefined {
  const at = target.docker;
  if (!at) return undefined;
  return bound(WORKER_ENGINES.find((e) => e.runs(at))!, at);
}

/**
 * The engine whose nodes `--url-per-node` reads: the target's, else the default engine (DOCKER_HOST,
 * else the local socket), as for a library caller that set `urlPerNode` alone.
 */
export function nodesEngine(target: { docker?: EngineTarget }): DeploymentEngine {
  return deploymentEngine(target) ?? bound(docker, {});
}

function bound(engine: WorkerEngine, at: EngineTarget): DeploymentEngine {
  return {
    name: engine.name,
    readImage: (request) => engine.readImage(at, request),
    readApiPerNode: (apiUrl, request, http) => engine.readApiPerNode(at, apiUrl, request, http),
  };
}
