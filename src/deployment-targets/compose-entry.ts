import { resolve } from 'node:path';
import { Option } from 'commander';
import { UsageError } from '../errors.ts';
import type { DeploymentEngineEntry } from './deployment-engine-entry.ts';

/**
 * A Compose project: its containers of an image, by Compose's labels (`--compose`, or a config
 * deployment's `compose:`). It runs on a Docker engine, which `--docker-host` names. The Compose
 * module (and its CLI lookup) loads only when a project is asked for.
 */
export const composeEntry: DeploymentEngineEntry = {
  name: 'compose',
  title: 'a Compose project',
  configKey: 'compose',
  options: [
    new Option(
      '--compose <file>',
      "read the worker from this Compose project's containers (by Compose's labels), running or not; repeatable, first file first",
    ).argParser((value: string, previous: string[] = []) => [...previous, value]),
    new Option(
      '--project-name <name>',
      'with --compose: the Compose project name (default: as Compose chooses it)',
    ),
  ],
  refuse: (flags, { code, command }) =>
    flags['projectName'] && !(flags['compose'] as string[] | undefined)?.length
      ? new UsageError(
          `${code}_PROJECT_WITHOUT_COMPOSE`,
          '--project-name names a Compose project: give its files with --compose',
          { hint: `release ${command} --url <api> --compose docker-compose.yml --project-name <name>` },
        )
      : undefined,
  fromFlags: async (flags, { base }) => {
    const files = (flags['compose'] as string[] | undefined) ?? [];
    const name = flags['projectName'] as string | undefined;
    if (files.length === 0) return undefined;
    const host = flags['dockerHost'] as string | undefined;
    const { composeProjectOf } = await import('./compose-project.ts');
    const project = await composeProjectOf(files, name, base, host);
    return {
      engine: { ...composeTarget(project), ...(host ? { host } : {}) },
      ...(flags['urlPerNode'] ? { urlPerNode: true } : {}),
    };
  },
  fromConfig: async (deployment, base) => {
    if (!deployment.compose) return undefined;
    const { composeProjectOf } = await import('./compose-project.ts');
    const files = deployment.compose.files.map((f) => resolve(base.configDir, f));
    return {
      engine: composeTarget(await composeProjectOf(files, deployment.compose.projectName, base, undefined)),
    };
  },
  reader: async () => (await import('../verify/engines/compose-reader.ts')).composeReader,
};

/** The engine part of a Compose target, named for its reader: its project's containers, its one-shot jobs known. */
function composeTarget(project: { name: string; oneShots: string[] }) {
  return {
    name: 'compose',
    composeProject: project.name,
    ...(project.oneShots.length ? { oneShots: project.oneShots } : {}),
  };
}
