import { composeEntry } from './compose-entry.ts';
import type { DeploymentEngineEntry } from './deployment-engine-entry.ts';
import { dockerEntry } from './docker-entry.ts';

/**
 * The deployment engines `release verify` and `release watch` read, the one place that names
 * them, the most specific first: the first whose flags name a target reads it. Their flags appear
 * in this order. A new engine is its entry (flags, targets, config key, reader) and one line here;
 * docs/kubernetes.md lists the rest.
 */
export const DEPLOYMENT_ENGINES: readonly DeploymentEngineEntry[] = [
  composeEntry, // --compose, or the deployment's compose.files: a Compose project's containers
  dockerEntry, // --docker, --docker-host: the engine's containers and Swarm services
];

/** Every engine's flags, each once, in registry order. */
export function engineTargetOptions(engines: readonly DeploymentEngineEntry[] = DEPLOYMENT_ENGINES) {
  const seen = new Set<string>();
  return engines.flatMap((engine) => engine.options).filter((o) => !seen.has(o.flags) && seen.add(o.flags));
}

/** The readers of the engines, loaded: what verify reads a target's worker with. */
export function engineReaders(engines: readonly DeploymentEngineEntry[] = DEPLOYMENT_ENGINES) {
  return Promise.all(engines.map((engine) => engine.reader()));
}
