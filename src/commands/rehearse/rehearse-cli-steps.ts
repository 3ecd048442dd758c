import { readFile, rename } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { buildCommandEnv, runBuildCommand } from '../../build/run-build-command.ts';
import { cliArtifact } from '../../config/artifacts.ts';
import { loadConfig } from '../../config/load.ts';
import { RuleError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { REHEARSAL, type RehearseContext } from './rehearse-context.ts';
import { npmInstallCli, runSvc, svcBin } from './svc-install.ts';
import { isolatedPath } from './workspace.ts';

const DOWNLOAD_PATH = '/api/cli/download/service-cli.tar.gz';

/** The operator's CLI, installed from the running API exactly as the spec tells users to. */
export const rehearseInstallCliStep: Step<RehearseContext> = {
  title: 'Install svc from the API',
  async run(ctx) {
    const prefix = join(ctx.workspace!, 'cli-current');
    const env = await svcEnv(ctx, prefix);
    await npmInstallCli(prefix, `${ctx.urls!.api}${DOWNLOAD_PATH}`, env);
    const version = await runSvc(['--version'], env);
    ctx.notes[this.title] = `${version.stdout.trim()} in ${prefix}`;
  },
};

/** An older CLI (below MIN_CLI_VERSION): the gate must refuse to run a command, exit 3. */
export const rehearseGateBlocksStep: Step<RehearseContext> = {
  title: `Show the gate blocking an old CLI (${REHEARSAL.oldCliVersion})`,
  async run(ctx) {
    const prefix = join(ctx.workspace!, 'cli-old');
    const archive = join(ctx.workspace!, `service-cli-${REHEARSAL.oldCliVersion}.tar.gz`);
    await buildOldCli(ctx, archive);
    const env = await svcEnv(ctx, prefix);
    await npmInstallCli(prefix, archive, env);
    const run = await runSvc(['status', '--url', ctx.urls!.api], env);
    const upgrade = `npm install -g ${ctx.urls!.api}${DOWNLOAD_PATH}`;
    if (run.exitCode !== 3 || !run.stderr.includes(upgrade)) {
      throw new RuleError(
        'REHEARSAL_GATE',
        `expected svc ${REHEARSAL.oldCliVersion} to be blocked (exit 3, naming "${upgrade}"); got exit ${run.exitCode}\n${run.stderr}`,
      );
    }
    ctx.notes[this.title] = `exit 3: "${firstLine(run.stderr)}" with "${upgrade}"`;
  },
};

/** `svc update --url`: the old CLI replaces itself from the API and then passes the gate. */
export const rehearseSvcUpdateStep: Step<RehearseContext> = {
  title: 'Update the old CLI with svc update --url',
  async run(ctx) {
    const prefix = join(ctx.workspace!, 'cli-old');
    const env = await svcEnv(ctx, prefix);
    const update = await runSvc(['update', '--url', ctx.urls!.api], env);
    if (update.exitCode !== 0) {
      throw new RuleError('REHEARSAL_UPDATE', `svc update exited ${update.exitCode}\n${update.stderr}`);
    }
    // The old svc carries the release key: the release's re-signed archive must have verified.
    const verified = /signature verified with key ([0-9a-f]{16})/.exec(update.stderr)?.[1];
    if (!verified) {
      throw new RuleError(
        'REHEARSAL_UPDATE_UNSIGNED',
        `svc update installed without checking a signature, though the old svc has the release key baked in\n${update.stderr}`,
      );
    }
    const version = (await runSvc(['--version'], env)).stdout.trim();
    const status = await runSvc(['status', '--url', ctx.urls!.api], env);
    if (status.exitCode !== 0) {
      throw new RuleError(
        'REHEARSAL_UPDATE',
        `after the update, svc status still exits ${status.exitCode}\n${status.stderr}`,
      );
    }
    ctx.notes[this.title] =
      `now ${version}, archive signature verified with key ${verified}; svc status runs (exit 0)`;
  },
};

/**
 * The project's CLI at an older version: its own build command (as `release build` runs it) with
 * SERVICE_VERSION set to that version and the release's public key to bake in, as a signed build
 * of that version would have; the archive is moved out of the project to `archive`.
 */
async function buildOldCli(ctx: RehearseContext, archive: string): Promise<void> {
  const { config, dir } = await loadConfig({ cwd: ctx.repo! });
  const cli = cliArtifact(config);
  if (!cli?.build) throw new RuleError('REHEARSAL_NO_CLI', 'the rehearsal project declares no CLI build');
  await runBuildCommand({
    at: `artifacts.${cli.name}.build.command`,
    command: cli.build.command,
    cwd: dir,
    env: buildCommandEnv({ ...ctx.releaseEnv }, REHEARSAL.oldCliVersion, {
      SERVICE_CLI_PUBLIC_KEY: await readFile(resolve(dir, config.signing!.publicKey!), 'utf8'),
    }),
    progress: () => undefined,
  });
  await rename(join(dir, cli.build.archive), archive);
}

/** PATH with this prefix's bin first, and nothing else that could hold an `svc`. */
export async function svcEnv(
  ctx: RehearseContext,
  prefix: string,
): Promise<Record<string, string | undefined>> {
  return { ...ctx.releaseEnv, PATH: await isolatedPath(ctx.workspace!, [svcBin(prefix)]) };
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
