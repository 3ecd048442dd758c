import { webClients } from '../../config/artifacts.ts';
import { OCI_LAYOUT_PREFIX } from '../../config/constants.ts';
import type { ReleaseConfig } from '../../config/schema.ts';
import {
  type WebTargetPart,
  webUrlsOfDeployment,
  webUrlsOfFlags,
} from '../../deployment-targets/web-urls.ts';
import { UsageError } from '../../errors.ts';
import { openConfiguredStore } from '../../registry/open-store.ts';
import { SERVICE_ROLES, type ServiceRole } from '../../upgrade/deployment-types.ts';
import { decideOutcome } from '../../upgrade/upgrade-outcome.ts';
import { imageTagOf } from '../../version/image-tag.ts';
import { parseVersion } from '../../version/parse.ts';
import { baseContext, type GlobalOptions } from '../command-context.ts';
import { raiseCliMinimumAfterRun } from './cli-minimum-check.ts';
import { selectEngine } from './engines.ts';
import { finishUpgrade } from './finish-upgrade.ts';
import type { ProveDeployment } from './prove-deployment.ts';

/**
 * The flags every engine shares; each engine's own (`--compose`, `--docker-host`) come from its
 * registry entry (engines.ts) and are read by the engine.
 */
export interface UpgradeFlags extends GlobalOptions {
  [engineFlag: string]: unknown;
  to: string;
  /** `--service role=name`, repeatable. */
  service: string[];
  deployment?: string;
  url?: string;
  /** `--web-url`, repeatable: one bare URL (the only web client) or `name=URL` per web artifact. */
  webUrl: string[];
  timeout: number;
  rollbackTimeout: number;
  monitor: number;
  requireCliCompatible?: boolean;
}

export async function runUpgrade(flags: UpgradeFlags, proveDeployment: ProveDeployment): Promise<void> {
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
  // Names given only override: each engine finds the rest as verify does (role-services.ts).
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
      hint: 'set registry: in the config to the registry the deployment pulls from (release promote publishes there)',
    });
  }
  const engine = selectEngine(flags, deployment);
  const { readPublicKey } = await import('../../signing/key-files.ts');
  const trustedKey = await readPublicKey(base);
  const webs = webClients(base.config).map((a) => a.name);
  const web: WebTargetPart =
    flags.webUrl.length > 0
      ? webUrlsOfFlags(flags.webUrl, webs, checkedWebUrl, 'upgrade')
      : deployment
        ? webUrlsOfDeployment(deployment, webs)
        : {};
  const loaded = await engine.load();
  const { ctx, plan, fromTag, report } = await loaded.run({
    base,
    flags,
    ...(deployment ? { deployment } : {}),
    tag,
    serviceNames,
    moreServices,
    apiUrl,
    ...(web.webUrl ? { webUrl: web.webUrl.replace(/\/+$/, '') } : {}),
    ...(web.webUrls ? { webUrls: web.webUrls } : {}),
    store: openConfiguredStore(base),
    ...(trustedKey ? { trustedKey } : {}),
    timeoutMs: flags.timeout,
    rollbackTimeoutMs: flags.rollbackTimeout,
    monitorMs: flags.monitor,
    requireCliCompatible: Boolean(flags.requireCliCompatible),
    proveDeployment,
  });
  ctx.outcome = decideOutcome({
    plan,
    failure: ctx.failure,
    restores: ctx.restores,
    proof: ctx.proof,
    inStepBefore: Boolean(ctx.inStepBefore),
    fromTag,
  });
  if (loaded.raisesCliMinimumAfterRun) raiseCliMinimumAfterRun(ctx);
  finishUpgrade(ctx, ctx.outcome, report);
}

function parseServices(values: string[], config: ReleaseConfig): Record<string, string> {
  const map: Record<string, string> = {};
  for (const value of values) {
    const match = /^([a-z][a-z0-9-]*)=(\S+)$/.exec(value);
    const known = (key: string) =>
      (SERVICE_ROLES as readonly string[]).includes(key) || config.artifacts[key]?.kind === 'image';
    if (!match || !known(match[1]!)) {
      throw new UsageError('UPGRADE_BAD_SERVICE', `--service "${value}" is not role=name`, {
        hint: `give the role (${SERVICE_ROLES.join(', ')}, or an image artifact such as a scheduler) and the service's name on the engine, like --service api=svc_api`,
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

/** A web client's URL flag: http(s), without its trailing slashes; anything else is exit 2. */
function checkedWebUrl(value: string, flag: string): string {
  if (!/^https?:\/\/[^/\s]/.test(value)) {
    throw new UsageError('UPGRADE_BAD_URL', `${flag} "${value}" is not an http(s) URL`, {
      hint: 'give a full URL, like --web-url https://app.example.com (or --web-url admin=https://…)',
    });
  }
  return value.replace(/\/+$/, '');
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
