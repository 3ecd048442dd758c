import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { composeModel, findComposeCli, projectName } from '../deployment-engines/compose/compose-cli.ts';
import { UsageError } from '../errors.ts';
import type { BaseContext } from '../pipeline/context.ts';
import { composeServices, oneShotServices } from '../upgrade/compose/compose-model.ts';

/**
 * `release verify --compose`: the name of the project whose containers to read, decided as the
 * upgrade decides it (same CLI, same rule), so both look at the same containers; and its one-shot
 * jobs (compose-model.ts), whose containers are meant to have exited. With `--project-name`, a
 * project whose files the Compose CLI cannot read (or no CLI at all) is still verified, without
 * knowing its one-shots.
 */
export async function composeProjectOf(
  files: string[],
  flag: string | undefined,
  base: BaseContext,
  dockerHost: string | undefined,
): Promise<{ name: string; oneShots: string[] }> {
  const paths = files.map((f) => resolve(base.cwd, f));
  const missing = paths.find((f) => !existsSync(f));
  if (missing) {
    throw new UsageError('COMPOSE_FILE_MISSING', `--compose ${missing}: no such file`, {
      hint: 'give the compose files the project is started with, first file first',
    });
  }
  const env = { ...base.env, ...(dockerHost ? { DOCKER_HOST: dockerHost } : {}) };
  const readModel = async () => {
    const cli = await findComposeCli(env);
    return (await composeModel(cli, { files: paths, dir: dirname(paths[0]!) }, env)) as {
      name?: string;
      services?: unknown;
    };
  };
  const model = flag ? await readModel().catch(() => undefined) : await readModel();
  return {
    name: projectName({ flag, env, modelName: model?.name, firstFile: paths[0]! }),
    // A model without services has no one-shots; its containers, if any, are read all the same.
    oneShots: model?.services ? oneShotServices(composeServices(model)) : [],
  };
}
