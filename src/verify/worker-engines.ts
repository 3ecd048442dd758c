import type { EngineTarget } from '../deployment-engines/engine-target.ts';
import { composeReader } from './engines/compose-reader.ts';
import { dockerReader } from './engines/docker-reader.ts';
import type { ImageReadingRequest, WorkerEngine } from './engines/worker-engine.ts';
import type { HttpProbeOptions } from './probes/api.ts';
import type { ProbeResult } from './types.ts';

export type { EngineTarget } from '../deployment-engines/engine-target.ts';
export type { ImageReadingRequest, WorkerEngine } from './engines/worker-engine.ts';

/**
 * The engines verify reads deployments from when its caller names none (a library caller of
 * verifyDeployment): the Docker engines, the most specific first. `release verify` and `release
 * watch` pass their deployment engine entries' readers instead (src/deployment-targets/).
 */
export const WORKER_ENGINES: readonly WorkerEngine[] = [composeReader, dockerReader];

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

/** Where a target runs on its engine: `engine`, else its deprecated alias `docker`. */
export function engineTargetOf(target: {
  engine?: EngineTarget;
  docker?: EngineTarget;
}): EngineTarget | undefined {
  return target.engine ?? target.docker;
}

/**
 * The engine a target is read from, or undefined when it names none (`--worker-url` only, say):
 * the one its target names, else the first that says it runs it.
 */
export function deploymentEngine(
  target: { engine?: EngineTarget; docker?: EngineTarget },
  engines: readonly WorkerEngine[] = WORKER_ENGINES,
): DeploymentEngine | undefined {
  const at = engineTargetOf(target);
  if (!at) return undefined;
  const engine = at.name ? engines.find((e) => e.name === at.name) : engines.find((e) => e.runs(at));
  if (!engine) throw new Error(`no reader for the deployment engine "${at.name ?? 'unnamed'}"`);
  return bound(engine, at);
}

/**
 * The engine whose nodes `--url-per-node` reads: the target's, else the default engine (DOCKER_HOST,
 * else the local socket), as for a library caller that set `urlPerNode` alone.
 */
export function nodesEngine(
  target: { engine?: EngineTarget; docker?: EngineTarget },
  engines: readonly WorkerEngine[] = WORKER_ENGINES,
): DeploymentEngine {
  return deploymentEngine(target, engines) ?? bound(dockerReader, {});
}

function bound(engine: WorkerEngine, at: EngineTarget): DeploymentEngine {
  return {
    name: engine.name,
    readImage: (request) => engine.readImage(at, request),
    readApiPerNode: (apiUrl, request, http) => engine.readApiPerNode(at, apiUrl, request, http),
  };
}
