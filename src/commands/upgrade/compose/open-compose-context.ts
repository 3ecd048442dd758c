import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  composeModel,
  findComposeCli,
  projectName,
} from '../../../deployment-engines/compose/compose-cli.ts';
import { UsageError } from '../../../errors.ts';
import { openDockerEngine } from '../docker/docker-engine.ts';
import { runContextOf, type UpgradeInput } from '../upgrade-input.ts';
import type { ComposeUpgradeContext } from './compose-context.ts';
import { composeFlag, projectNameFlag } from './compose-flags.ts';

/**
 * The Compose engine's context from the one input: the files (`--compose`, else the deployment's
 * `compose.files` from the config's folder), the engine (refused when it does not answer), the
 * Compose CLI, the project's name as Compose itself would choose it, and where our override goes.
 */
export async function openComposeContext(input: UpgradeInput): Promise<ComposeUpgradeContext> {
  const { base } = input;
  const given = composeFlag(input.flags);
  const configured = input.deployment?.compose;
  const files = (
    given.length > 0 ? given : (configured?.files.map((f) => resolve(base.configDir, f)) ?? [])
  ).map((f) => resolve(base.cwd, f));
  const engine = await openDockerEngine(input);
  const missing = files.find((f) => !existsSync(f));
  if (missing) {
    throw new UsageError('COMPOSE_FILE_MISSING', `--compose ${missing}: no such file`, {
      hint: 'give the compose files the project is started with, first file first',
    });
  }
  const env = { ...base.env, DOCKER_HOST: engine.dockerHost };
  const cli = await findComposeCli(env);
  const dir = dirname(files[0]!);
  const model = (await composeModel(cli, { files, dir }, env)) as { name?: string };
  const name = projectName({
    flag: projectNameFlag(input.flags) ?? configured?.projectName,
    env,
    modelName: model?.name,
    firstFile: files[0]!,
  });
  return {
    ...runContextOf(input),
    ...engine,
    env,
    cli,
    project: { files, name, dir },
    overridePath: join(dir, '.release', `${name}.override.yml`),
    overrideWritten: false,
    touched: new Set(),
  };
}
