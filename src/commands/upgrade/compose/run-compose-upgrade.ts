import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type Docker from 'dockerode';
import { currentIo } from '../../../console/cli-io.ts';
import {
  composeModel,
  findComposeCli,
  projectName,
} from '../../../deployment-engines/compose/compose-cli.ts';
import { UsageError } from '../../../errors.ts';
import { acquireLock } from '../../../files/file-lock.ts';
import type { BaseContext } from '../../../pipeline/context.ts';
import { runPipeline } from '../../../pipeline/runner.ts';
import type { ImageStore } from '../../../registry/store.ts';
import type { PublicSigningKey } from '../../../signing/keys.ts';
import type { ServiceRole } from '../../../upgrade/deployment-types.ts';
import { decideOutcome } from '../../../upgrade/upgrade-outcome.ts';
import { finishUpgrade } from '../finish-upgrade.ts';
import type { ComposeUpgradeContext } from './compose-context.ts';
import { composeUpgradePipeline } from './compose-pipeline.ts';
import { composeUpgradeJson, renderComposeUpgrade } from './compose-report.ts';

/** What `release upgrade` settled before it knew the deployment is a Compose project. */
export interface ComposeUpgradeInput {
  base: BaseContext;
  tag: string;
  serviceNames: Partial<Record<ServiceRole, string>>;
  apiUrl: string;
  webUrl?: string;
  dockerHost: string;
  docker: Docker;
  store: ImageStore;
  trustedKey?: PublicSigningKey;
  composeFiles: string[];
  projectName?: string;
  timeoutMs: number;
  rollbackTimeoutMs: number;
  monitorMs: number;
  requireCliCompatible: boolean;
}

export async function runComposeUpgrade(input: ComposeUpgradeInput): Promise<void> {
  const { base } = input;
  const files = input.composeFiles.map((f) => resolve(base.cwd, f));
  const missing = files.find((f) => !existsSync(f));
  if (missing) {
    throw new UsageError('COMPOSE_FILE_MISSING', `--compose ${missing}: no such file`, {
      hint: 'give the compose files the project is started with, first file first',
    });
  }
  const env = { ...base.env, DOCKER_HOST: input.dockerHost };
  const cli = await findComposeCli(env);
  const dir = dirname(files[0]!);
  const model = (await composeModel(cli, { files, dir }, env)) as { name?: string };
  const name = projectName({ flag: input.projectName, env, modelName: model?.name, firstFile: files[0]! });
  const ctx: ComposeUpgradeContext = {
    ...base,
    env,
    tag: input.tag,
    serviceNames: input.serviceNames,
    apiUrl: input.apiUrl,
    ...(input.webUrl ? { webUrl: input.webUrl } : {}),
    dockerHost: input.dockerHost,
    docker: input.docker,
    store: input.store,
    ...(input.trustedKey ? { trustedKey: input.trustedKey } : {}),
    timeoutMs: input.timeoutMs,
    rollbackTimeoutMs: input.rollbackTimeoutMs,
    monitorMs: input.monitorMs,
    probeTimeoutMs: 5_000,
    requireCliCompatible: input.requireCliCompatible,
    startedAt: performance.now(),
    cli,
    project: { files, name, dir },
    overridePath: join(dir, '.release', `${name}.override.yml`),
    overrideWritten: false,
    touched: new Set(),
    restores: [],
    events: [],
  };
  // One upgrade of a project at a time: a second would read the first's containers mid-change,
  // and its rollback would put back what the first just did. A dry run changes nothing.
  const unlock = ctx.dryRun ? undefined : await lockProject(ctx);
  try {
    await runPipeline(composeUpgradePipeline, ctx, {
      json: ctx.json || !currentIo().stderr.isTTY,
      env: ctx.env,
      dryRun: ctx.dryRun,
    });
  } finally {
    await unlock?.();
  }
  ctx.outcome = decideOutcome({
    plan: ctx.plan!,
    failure: ctx.failure,
    restores: ctx.restores,
    proof: ctx.proof,
    inStepBefore: Boolean(ctx.inStepBefore),
    fromTag: ctx.fromTag,
  });
  finishUpgrade(ctx, ctx.outcome, {
    json: () => composeUpgradeJson(ctx),
    lines: () => renderComposeUpgrade(ctx),
  });
}

/**
 * The project's upgrade lock, beside its override (`.release/<project>.upgrade.lock`): held while
 * an upgrade and its rollback run, taken over at once from one that was killed (files/file-lock.ts). Another
 * upgrade under way is an outside system busy: exit 3, before anything is read or changed.
 */
async function lockProject(ctx: ComposeUpgradeContext): Promise<() => Promise<void>> {
  const path = join(dirname(ctx.overridePath), `${ctx.project.name}.upgrade.lock`);
  await mkdir(dirname(path), { recursive: true });
  return acquireLock(path, {
    what: `Compose project "${ctx.project.name}"`,
    waitMs: 2_000,
    code: 'UPGRADE_UNDER_WAY',
    hint: `another release upgrade of Compose project "${ctx.project.name}" is under way; let it finish (or stop it), then run this one again`,
    notice: (text) => ctx.warnings.push(text),
  });
}
