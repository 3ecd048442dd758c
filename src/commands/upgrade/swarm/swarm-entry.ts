import { DOCKER_OPTIONS } from '../docker/docker-options.ts';
import type { UpgradeEngineEntry } from '../upgrade-engine.ts';

/** Docker Swarm: the default engine, run when no other is asked for (engines.ts). */
export const swarmEntry: UpgradeEngineEntry = {
  name: 'swarm',
  title: 'Docker Swarm',
  options: DOCKER_OPTIONS,
  load: async () => (await import('./swarm-engine.ts')).swarmEngine,
};
