import { resolve } from 'node:path';
import type { ReleaseConfig } from '../config/schema.ts';
import { UsageError } from '../errors.ts';
import type { BaseContext } from '../pipeline/context.ts';
import type { VerifyTarget } from '../verify/probe-deployment.ts';

/** The flags that say which deployments to read: the same for `release verify` and `release watch`. */
export interface DeploymentFlags {
  all?: boolean;
  url?: string;
  webUrl?: string;
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
): Promise<VerifyTarget[]> {
  const code = wording.command.toUpperCase();
  if (flags.all) {
    const beside = [
      flags.webUrl,
      flags.workerUrl,
      flags.docker,
      flags.dockerHost,
      flags.name,
      flags.compose?.length,
      flags.projectName,
      flags.urlPerNode,
    ];
    if (beside.some(Boolean)) {
      throw new UsageError(`${code}_ALL_WITH_TARGET`, '--all reads every URL from the config', {
        hint: wording.allHint,
      });
    }
    return configuredTargets(base.config.deployments, base, code);
  }
  return [await flaggedTarget(flags, base, code, wording)];
}

async function configuredTargets(
  deployments: ReleaseConfig['deployments'],
  base: BaseContext,
  code: string,
): Promise<VerifyTarget[]> {
  if (deployments.length === 0) {
    throw new UsageError(`${code}_NO_DEPLOYMENTS`, 'no deployments are configured for --all', {
      hint: 'add `deployments: [{ name, url, webUrl?, workerUrl? }]` to release.config.ts',
    });
  }
  // A Compose deployment without a worker URL: its worker is read from its project's containers.
  // The Compose module (and its CLI lookup) is loaded only when one is configured.
  const readsCompose = (d: ReleaseConfig['deployments'][number]) => Boolean(d.compose && !d.workerUrl);
  const compose = deployments.some(readsCompose) ? await import('./compose-project.ts') : undefined;
  return Promise.all(
    deployments.map(async ({ name, url, webUrl, workerUrl, compose: project }) => {
      const target: VerifyTarget = {
        name,
        url,
        ...(webUrl ? { webUrl } : {}),
        ...(workerUrl ? { workerUrl } : {}),
      };
      if (!compose || !project || workerUrl) return target;
      const files = project.files.map((f) => resolve(base.configDir, f));
      const read = await compose.composeProjectOf(files, project.projectName, base, undefined);
      return { ...target, docker: composeDocker(read) };
    }),
  );
}

async function flaggedTarget(
  flags: DeploymentFlags,
  base: BaseContext,
  code: string,
  wording: TargetWording,
): Promise<VerifyTarget> {
  if (!flags.url) {
    throw new UsageError(`${code}_NO_URL`, wording.noUrl.message, { hint: wording.noUrl.hint });
  }
  if (flags.urlPerNode && !flags.docker && !flags.dockerHost) {
    throw new UsageError(
      `${code}_URL_PER_NODE`,
      '--url-per-node reads the nodes from a Swarm manager: it needs --docker or --docker-host',
      {
        hint: `release ${wording.command} --url http://node1:8080 --docker-host unix:///var/run/docker.sock --url-per-node`,
      },
    );
  }
  if (flags.projectName && !flags.compose?.length) {
    throw new UsageError(
      `${code}_PROJECT_WITHOUT_COMPOSE`,
      '--project-name names a Compose project: give its files with --compose',
      {
        hint: `release ${wording.command} --url <api> --compose docker-compose.yml --project-name <name>`,
      },
    );
  }
  const url = checkedUrl(flags.url, '--url');
  const project = flags.compose?.length
    ? await (await import('./compose-project.ts')).composeProjectOf(
        flags.compose,
        flags.projectName,
        base,
        flags.dockerHost,
      )
    : undefined;
  const docker =
    flags.docker || flags.dockerHost || project
      ? {
          ...(flags.dockerHost ? { host: flags.dockerHost } : {}),
          ...(project ? composeDocker(project) : {}),
        }
      : undefined;
  return {
    ...(flags.name ? { name: flags.name } : {}),
    url,
    ...(flags.webUrl ? { webUrl: checkedUrl(flags.webUrl, '--web-url') } : {}),
    ...(flags.workerUrl ? { workerUrl: checkedUrl(flags.workerUrl, '--worker-url') } : {}),
    ...(docker ? { docker } : {}),
    ...(flags.urlPerNode ? { urlPerNode: true } : {}),
  };
}

/** The engine part of a Compose target: its project's containers, its one-shot jobs known. */
function composeDocker(project: { name: string; oneShots: string[] }): NonNullable<VerifyTarget['docker']> {
  return { composeProject: project.name, ...(project.oneShots.length ? { oneShots: project.oneShots } : {}) };
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
