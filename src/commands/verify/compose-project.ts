import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { composeModel, findComposeCli, projectName } from '../../engine/docker/compose-cli.ts';
import { UsageError } from '../../errors.ts';
import type { BaseContext } from '../../pipeline/context.ts';

/**
 * `release verify --compose`: the name of the project whose containers to read, decided as the
 * upgrade decides it (same CLI, same rule), so both look at the same containers.
 */
export async function composeProjectName(
  files: string[],
  flag: string | undefined,
  base: BaseContext,
  dockerHost: string | undefined,
): Promise<string> {
  const paths = files.map((f) => resolve(base.cwd, f));
  const missing = paths.find((f) => !existsSync(f));
  if (missing) {
    throw new UsageError('COMPOSE_FILE_MISSING', `--compose ${missing}: no such file`, {
      hint: 'give the compose files the project is started with, first file first',
    });
  }
  if (flag) return projectName({ flag, env: base.env, modelName: undefined, firstFile: paths[0]! });
  const env = { ...base.env, ...(dockerHost ? { DOCKER_HOST: dockerHost } : {}) };
  const cli = await findComposeCli(env);
  const model = (await composeModel(cli, { files: paths, dir: dirname(paths[0]!) }, env)) as {
    name?: string;
  };
  return projectName({ flag: undefined, env, modelName: model?.name, firstFile: paths[0]! });
}
