import { UsageError } from '../../../errors.ts';
import { DOCKER_OPTIONS } from '../docker/docker-options.ts';
import type { UpgradeEngineEntry } from '../upgrade-engine.ts';
import { COMPOSE_OPTIONS, composeFlag, projectNameFlag } from './compose-flags.ts';

/** A Compose project: asked for by `--compose`, or by the config deployment's `compose.files`. */
export const composeEntry: UpgradeEngineEntry = {
  name: 'compose',
  title: 'a Compose project',
  options: [...COMPOSE_OPTIONS, ...DOCKER_OPTIONS],
  selects: (flags, deployment) =>
    composeFlag(flags).length > 0 || (deployment?.compose?.files.length ?? 0) > 0,
  strayFlags: (flags) =>
    projectNameFlag(flags)
      ? new UsageError(
          'UPGRADE_PROJECT_WITHOUT_COMPOSE',
          '--project-name names a Compose project: give its files with --compose',
          { hint: 'release upgrade --compose docker-compose.yml --project-name <name> ...' },
        )
      : undefined,
  load: async () => (await import('./compose-engine.ts')).composeEngine,
};
