import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { restampCliArchive } from '../../cli-package/restamp-archive.ts';
import { cliArtifact } from '../../config/artifacts.ts';
import { loadConfig } from '../../config/load.ts';
import { RuleError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { REHEARSAL, type RehearseContext } from './rehearse-context.ts';
import { npmInstallCli, runSvc, svcBin } from './svc-install.ts';
import { isolatedPath } from './workspace.ts';

const DOWNLOAD_PATH = '/api/cli/download/service-cli.tar.gz';
const OLD_CLI_PREFIX = 'cli-old';

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
    await (ctx.oldCli ?? Promise.reject(new RuleError('REHEARSAL_NO_OLD_CLI', 'no old CLI was prepared')));
    const env = await svcEnv(ctx, join(ctx.workspace!, OLD_CLI_PREFIX));
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

/**
 * Start installing the old CLI (`npm install -g` of its archive into its own prefix) without
 * waiting: it needs only the rc's archive, so it runs beside the promotions and the deployment,
 * and the gate step awaits it. A failure is kept for the gate step to report, not left unhandled.
 */
export function startOldCliInstall(ctx: RehearseContext): void {
  const install = (async () => {
    const archive = join(ctx.workspace!, `service-cli-${REHEARSAL.oldCliVersion}.tar.gz`);
    await writeOldCliArchive(ctx, archive);
    const prefix = join(ctx.workspace!, OLD_CLI_PREFIX);
    await npmInstallCli(prefix, archive, await svcEnv(ctx, prefix));
  })();
  install.catch(() => undefined);
  ctx.oldCli = install;
}

/** `svc update --url`: the old CLI replaces itself from the API and then passes the gate. */
export const rehearseSvcUpdateStep: Step<RehearseContext> = {
  title: 'Update the old CLI with svc update --url',
  async run(ctx) {
    const env = await svcEnv(ctx, join(ctx.workspace!, OLD_CLI_PREFIX));
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
 * The project's CLI at an older version: the rc's own archive (its code, the release's public key
 * baked in) re-stamped as that version, as `release promote` re-stamps a release's archive, in
 * this process: a second run of the CLI's build command would cost a Node start and a bundle to
 * make the same code with another version string.
 */
async function writeOldCliArchive(ctx: RehearseContext, archive: string): Promise<void> {
  const { config, dir } = await loadConfig({ cwd: ctx.repo! });
  const cli = cliArtifact(config);
  if (!cli?.build) throw new RuleError('REHEARSAL_NO_CLI', 'the rehearsal project declares no CLI build');
  const rc = await readFile(resolve(dir, cli.build.archive));
  await writeFile(archive, await restampCliArchive(rc, REHEARSAL.oldCliVersion));
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
