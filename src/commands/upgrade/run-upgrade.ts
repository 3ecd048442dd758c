import { resolve } from 'node:path';
import { cliArtifact } from '../../config/artifacts.ts';
import { OCI_LAYOUT_PREFIX } from '../../config/constants.ts';
import type { ReleaseConfig } from '../../config/schema.ts';
import { currentIo } from '../../console/cli-io.ts';
import { connectDocker, dockerAnswers } from '../../docker-client/connect.ts';
import { ExternalError, UsageError } from '../../errors.ts';
import { runPipeline } from '../../pipeline/runner.ts';
import { openConfiguredStore } from '../../registry/open-store.ts';
import { cliMinimumRaise } from '../../upgrade/cli-minimum.ts';
import { SERVICE_ROLES, type ServiceRole } from '../../upgrade/deployment-types.ts';
import { decideOutcome } from '../../upgrade/upgrade-outcome.ts';
import { imageTagOf } from '../../version/image-tag.ts';
import { parseVersion } from '../../version/parse.ts';
import { baseContext, type GlobalOptions } from '../command-context.ts';
import { finishUpgrade } from './finish-upgrade.ts';
import { upgradePipeline } from './swarm/upgrade-pipeline.ts';
import { renderUpgrade, upgradeJson } from './swarm/upgrade-report.ts';
import type { UpgradeContext } from './upgrade-context.ts';

export interface UpgradeFlags extends GlobalOptions {
  to: string;
  /** `--service role=name`, repeatable. */
  service: string[];
  deployment?: string;
  url?: string;
  webUrl?: string;
  dockerHost?: string;
  timeout: number;
  rollbackTimeout: number;
  monitor: number;
  requireCliCompatible?: boolean;
  /** `--compose <file>`, repeatable: the deployment is this Compose project, not Swarm. */
  compose?: string[];
  projectName?: string;
}

export async function runUpgrade(flags: UpgradeFlags): Promise<void> {
  const base = await baseContext(flags);
  const tag = checkedTag(flags.to);
  const deployment = flags.deployment
    ? base.config.deployments.find((d) => d.name === flags.deployment)
    : undefined;
  if (flags.deployment && !deployment) {
    throw new UsageError('UPGRADE_NO_DEPLOYMENT', `the config has no deployment "${flags.deployment}"`, {
      hint: `name one of: ${base.config.deployments.map((d) => d.name).join(', ') || '(none configured)'}`,
    });
  }
  const named =
    flags.service.length > 0 ? parseServices(flags.service, base.config) : (deployment?.services ?? {});
  // api, worker and web by role; any other key is an artifact run from a shared image (a scheduler).
  const serviceNames: Partial<Record<ServiceRole, string>> = {
    ...(named.api ? { api: named.api } : {}),
    ...(named.worker ? { worker: named.worker } : {}),
    ...(named.web ? { web: named.web } : {}),
  };
  const moreServices = Object.fromEntries(
    Object.entries(named).filter(
      (entry): entry is [string, string] =>
        !(SERVICE_ROLES as readonly string[]).includes(entry[0]) && !!entry[1],
    ),
  );
  if (!serviceNames.api || !serviceNames.worker) {
    throw new UsageError(
      'UPGRADE_NEEDS_API_AND_WORKER',
      'API and worker are upgraded together: name both services',
      {
        hint: 'release upgrade --to <tag> --service api=<service> --service worker=<service> (or --deployment <name> with services: in the config)',
      },
    );
  }
  const apiUrl = (flags.url ?? deployment?.url)?.replace(/\/+$/, '');
  if (!apiUrl || !/^https?:\/\//.test(apiUrl)) {
    throw new UsageError(
      'UPGRADE_NO_URL',
      "the API's URL is needed to read /api/version: --url <api base URL>",
      {
        hint: 'release upgrade --url https://svc.example.com ..., or --deployment <name> from the config',
      },
    );
  }
  if (base.config.registry.startsWith(OCI_LAYOUT_PREFIX)) {
    throw new UsageError('UPGRADE_NEEDS_REGISTRY', `the engine cannot pull from ${base.config.registry}`, {
      hint: 'set registry: in the config to the registry the Swarm nodes pull from (release promote publishes there)',
    });
  }
  const dockerHost = flags.dockerHost ?? base.env['DOCKER_HOST'] ?? 'unix:///var/run/docker.sock';
  const docker = connectDocker({ ...base.env, DOCKER_HOST: dockerHost });
  if (!(await dockerAnswers(docker, 10_000))) {
    throw new ExternalError('DOCKER_UNREACHABLE', `no Docker engine answers at ${dockerHost}`, {
      hint: 'point --docker-host at the engine: a Swarm manager, or the host of the Compose project (unix:///path or tcp://host:port)',
    });
  }
  const { readPublicKey } = await import('../../signing/key-files.ts');
  const trustedKey = await readPublicKey(base);
  const webUrl = flags.webUrl ?? deployment?.webUrl;
  const composeFiles = flags.compose?.length
    ? flags.compose
    : (deployment?.compose?.files.map((f) => resolve(base.configDir, f)) ?? []);
  if (composeFiles.length > 0) {
    const { runComposeUpgrade } = await import('./compose/run-compose-upgrade.ts');
    const projectName = flags.projectName ?? deployment?.compose?.projectName;
    await runComposeUpgrade({
      base,
      tag,
      serviceNames,
      apiUrl,
      ...(webUrl ? { webUrl: webUrl.replace(/\/+$/, '') } : {}),
      dockerHost,
      docker,
      store: openConfiguredStore(base),
      ...(trustedKey ? { trustedKey } : {}),
      composeFiles,
      ...(projectName ? { projectName } : {}),
      timeoutMs: flags.timeout,
      rollbackTimeoutMs: flags.rollbackTimeout,
      monitorMs: flags.monitor,
      requireCliCompatible: Boolean(flags.requireCliCompatible),
    });
    return;
  }
  if (flags.projectName) {
    throw new UsageError(
      'UPGRADE_PROJECT_WITHOUT_COMPOSE',
      '--project-name names a Compose project: give its files with --compose',
      {
        hint: 'release upgrade --compose docker-compose.yml --project-name <name> ...',
      },
    );
  }
  const ctx: UpgradeContext = {
    ...base,
    tag,
    serviceNames,
    moreServices,
    apiUrl,
    ...(webUrl ? { webUrl: webUrl.replace(/\/+$/, '') } : {}),
    dockerHost,
    docker,
    store: openConfiguredStore(base),
    ...(trustedKey ? { trustedKey } : {}),
    timeoutMs: flags.timeout,
    rollbackTimeoutMs: flags.rollbackTimeout,
    monitorMs: flags.monitor,
    probeTimeoutMs: 5_000,
    requireCliCompatible: Boolean(flags.requireCliCompatible),
    startedAt: performance.now(),
    touched: new Set(),
    restores: [],
    events: [],
  };
  await runPipeline(upgradePipeline, ctx, {
    json: ctx.json || !currentIo().stderr.isTTY,
    env: ctx.env,
    dryRun: ctx.dryRun,
  });

  const fromTag = ctx.running?.find((s) => s.role === 'api')?.version;
  ctx.outcome = decideOutcome({
    plan: ctx.plan!,
    failure: ctx.failure,
    restores: ctx.restores,
    proof: ctx.proof,
    inStepBefore: Boolean(ctx.inStepBefore),
    fromTag,
  });
  if (!ctx.failure && !ctx.dryRun && !ctx.cliChange) {
    // The target image did not say its minimum: the API it now runs does.
    const raised = cliMinimumRaise({
      current: ctx.currentMinCli,
      target: ctx.upgradedMinCli,
      tag,
      cliPackage: cliArtifact(base.config)?.package ?? 'service-cli',
    });
    if (raised) {
      ctx.cliChange = raised;
      ctx.warnings.push(
        `${raised.message}; install the matching CLI with: ${raised.install} (or svc update --url ${apiUrl})`,
      );
    }
  }
  finishUpgrade(ctx, ctx.outcome, { json: () => upgradeJson(ctx), lines: () => renderUpgrade(ctx) });
}

function parseServices(values: string[], config: ReleaseConfig): Record<string, string> {
  const map: Record<string, string> = {};
  for (const value of values) {
    const match = /^([a-z][a-z0-9-]*)=(\S+)$/.exec(value);
    const known = (key: string) =>
      (SERVICE_ROLES as readonly string[]).includes(key) || config.artifacts[key]?.kind === 'image';
    if (!match || !known(match[1]!)) {
      throw new UsageError('UPGRADE_BAD_SERVICE', `--service "${value}" is not role=name`, {
        hint: `give the role (${SERVICE_ROLES.join(', ')}, or an image artifact such as a scheduler) and the Swarm (or Compose) service name, like --service api=svc_api`,
      });
    }
    const role = match[1]!;
    if (map[role]) {
      throw new UsageError('UPGRADE_BAD_SERVICE', `--service ${role}= is given twice`);
    }
    map[role] = match[2]!;
  }
  return map;
}

function checkedTag(value: string): string {
  const version = parseVersion(value);
  if (version.kind === 'invalid' || version.kind === 'unknown') {
    throw new UsageError('UPGRADE_BAD_TAG', `--to "${value}" is not a version tag`, {
      hint: 'give the release to run, like --to v1.4.0',
    });
  }
  return imageTagOf(version);
}
