import { webClients } from '../config/artifacts.ts';
import type { ReleaseConfig } from '../config/schema.ts';
import { UsageError } from '../errors.ts';
import type { BaseContext } from '../pipeline/context.ts';
import type { VerifyTarget } from '../verify/probe-deployment.ts';
import type { WorkerEngine } from '../verify/worker-engines.ts';
import {
  type DeploymentEngineEntry,
  type EngineTargetPart,
  flagNames,
  given,
  type TargetRequest,
} from './deployment-engine-entry.ts';
import { DEPLOYMENT_ENGINES, engineReaders } from './deployment-engines.ts';
import { webUrlsOfDeployment, webUrlsOfFlags } from './web-urls.ts';

/** The flags that say which deployments to read: the same for `release verify` and `release watch`. */
export interface DeploymentFlags {
  /** Each engine's own flags (`dockerHost`, `compose`), read by its entry. */
  [engineFlag: string]: unknown;
  all?: boolean;
  url?: string;
  /** `--web-url`, repeatable: one bare URL (the only web client) or `name=URL` per web artifact. */
  webUrl?: string | string[];
  workerUrl?: string;
  docker?: boolean;
  dockerHost?: string;
  urlPerNode?: boolean;
  /** `--compose <file>`: the worker is read from this Compose project's containers only. */
  compose?: string[];
  projectName?: string;
  /** `release watch --name`: the one deployment's label (verify has no use for one). */
  name?: string;
}

/**
 * The words of the command asking: its error codes carry its name (`VERIFY_NO_URL`, `WATCH_NO_URL`)
 * and its hints show its own command line, as each did before the two shared this builder.
 */
export interface TargetWording {
  command: 'verify' | 'watch';
  /** `--url` missing, without `--all`. */
  noUrl: { message: string; hint: string };
  /** `--all` given with a flag that names one deployment. */
  allHint: string;
}

/**
 * Flags and the config's deployments -> the deployments to read. `--all` reads every
 * `deployments:` entry (a Compose one without `workerUrl` has its worker read from its project's
 * containers, files resolved against the config's directory); otherwise the one deployment the
 * flags name. Verify and watch both build their targets here, so a config key or flag one honours
 * the other cannot silently drop.
 */
export async function deploymentTargets(
  flags: DeploymentFlags,
  base: BaseContext,
  wording: TargetWording,
  engines: readonly DeploymentEngineEntry[] = DEPLOYMENT_ENGINES,
): Promise<VerifyTarget[]> {
  const code = wording.command.toUpperCase();
  if (flags.all) {
    const beside = [flags.webUrl, flags.workerUrl, flags.name, ...engineFlags(engines).map((f) => flags[f])];
    if (beside.some(given)) {
      throw new UsageError(`${code}_ALL_WITH_TARGET`, '--all reads every URL from the config', {
        hint: wording.allHint,
      });
    }
    return configuredTargets(base.config.deployments, base, code, engines);
  }
  return [await flaggedTarget(flags, { base, code, command: wording.command }, wording, engines)];
}

/** Every engine's flags by commander's names: refused beside `--all` and `--manifests`. */
export function engineFlags(engines: readonly DeploymentEngineEntry[] = DEPLOYMENT_ENGINES): string[] {
  return [...new Set(engines.flatMap(flagNames))];
}

async function configuredTargets(
  deployments: ReleaseConfig['deployments'],
  base: BaseContext,
  code: string,
  engines: readonly DeploymentEngineEntry[],
): Promise<VerifyTarget[]> {
  if (deployments.length === 0) {
    throw new UsageError(`${code}_NO_DEPLOYMENTS`, 'no deployments are configured for --all', {
      hint: 'add `deployments: [{ name, url, webUrl? (or webUrls), workerUrl? }]` to release.config.ts',
    });
  }
  return Promise.all(
    deployments.map(async (deployment) => {
      const { name, url, workerUrl } = deployment;
      const target: VerifyTarget = {
        name,
        url,
        ...webUrlsOfDeployment(deployment, webNames(base)),
        ...(workerUrl ? { workerUrl } : {}),
      };
      // A deployment under an engine's key without a worker URL: its worker is read from there.
      if (workerUrl) return target;
      const engine = engines.find((e) => e.configKey && deployment[e.configKey] && e.fromConfig);
      const part = engine ? await engine.fromConfig!(deployment, base) : undefined;
      return { ...target, ...part };
    }),
  );
}

async function flaggedTarget(
  flags: DeploymentFlags,
  request: TargetRequest,
  wording: TargetWording,
  engines: readonly DeploymentEngineEntry[],
): Promise<VerifyTarget> {
  for (const engine of engines) {
    const refusal = engine.refuse?.(flags, request);
    if (refusal) throw refusal;
  }
  // The first engine, the most specific, whose flags name a target reads it.
  let part: EngineTargetPart | undefined;
  for (const engine of engines) part ??= await engine.fromFlags(flags, request);
  if (!flags.url && !part?.engine) {
    throw new UsageError(`${request.code}_NO_URL`, wording.noUrl.message, { hint: wording.noUrl.hint });
  }
  // An engine named and no --url: the API is where the engine runs it (its containers' ports).
  const url = flags.url
    ? checkedUrl(flags.url, '--url')
    : await (await import('./api-url-from-engine.ts')).apiUrlFromEngine(
        part!.engine!,
        request.base,
        request.code,
        request.command,
      );
  return {
    ...(flags.name ? { name: flags.name } : {}),
    url,
    ...webUrlsOfFlags(
      flags.webUrl === undefined ? [] : [flags.webUrl].flat(),
      webNames(request.base),
      checkedUrl,
      request.command,
    ),
    ...(flags.workerUrl ? { workerUrl: checkedUrl(flags.workerUrl, '--worker-url') } : {}),
    ...part,
  };
}

/** The names of the config's web clients, as `--web-url name=URL` and `webUrls` name them. */
function webNames(base: BaseContext): string[] {
  return webClients(base.config).map((a) => a.name);
}

/**
 * What verify reads these targets' workers with: the readers of the engines' entries, loaded
 * only when a target names an engine (a `--url`-only verify loads none).
 */
export async function targetReaders(
  targets: readonly VerifyTarget[],
  engines: readonly DeploymentEngineEntry[] = DEPLOYMENT_ENGINES,
): Promise<{ engines?: WorkerEngine[] }> {
  return targets.some((t) => t.engine || t.docker) ? { engines: await engineReaders(engines) } : {};
}

/** An http(s) URL flag, without its trailing slashes; anything else is a usage error (exit 2). */
export function checkedUrl(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError('VERIFY_BAD_URL', `${flag} "${value}" is not a URL`, {
      hint: `give a full URL, like ${flag} http://127.0.0.1:8080`,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError('VERIFY_BAD_URL', `${flag} must be http:// or https://, not ${url.protocol}`);
  }
  return value.replace(/\/+$/, '');
}
