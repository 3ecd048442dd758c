import { OCI_LAYOUT_PREFIX } from '../config/constants.ts';
import type { NodeVersion } from './node-version.ts';
import type { PackageManager } from './package-manager.ts';
import type { InitPlan } from './plan-config.ts';
import { type RegistryLogin, registryLogin } from './registry-login.ts';
import type { TagScheme } from './tag-scheme.ts';

/**
 * What a CI pipeline must know of the config `release init` wrote, and of the repository, to run
 * as written: the engine its images can be built with, what to install for it and with which
 * package manager and Node, the registry to log into (and with which credentials), the tags that
 * release, whether there is a web client to verify. Pure.
 */
export interface PipelineFacts {
  engine: 'oci' | 'docker';
  /** The docker engine needs dockerode (an optional peer dependency) and the project lacks it. */
  installDockerode: boolean;
  /** The registry host to log into, or none for an OCI layout (nothing to publish to). */
  registryHost?: string;
  /** How to log into it. */
  login?: RegistryLogin;
  web: boolean;
  /** Several web clients (an app and an admin dashboard): their artifact names, in config order. */
  webs?: string[];
  /** The CLI is built with Python's `build` package, which a runner does not have. */
  pythonBuild: boolean;
  manager: PackageManager;
  node: NodeVersion;
  tags: TagScheme;
}

/** What init reads of the repository itself for its CI: how it installs, its Node, its tags. */
export interface RepositoryFacts {
  dependencies: readonly string[];
  manager: PackageManager;
  node: NodeVersion;
  tags: TagScheme;
}

export function pipelineFacts(plan: InitPlan, repository: RepositoryFacts): PipelineFacts {
  const images = plan.artifacts
    .filter((a) => a.name !== 'cli' && a.value && ('context' in a.value || 'files' in a.value))
    .map((a) => a.value as Record<string, unknown>);
  // The daemonless engine needs a recipe for every image it builds; one without: docker.
  const engine = images.length > 0 && images.every((v) => 'files' in v) ? 'oci' : 'docker';
  const host = plan.registry.startsWith(OCI_LAYOUT_PREFIX) ? undefined : plan.registry.split('/')[0];
  const login = host ? registryLogin(host) : undefined;
  const webs = plan.artifacts
    .filter((a) => a.value && (a.name === 'web' || (a.value as { role?: string }).role === 'web'))
    .map((a) => a.name);
  return {
    engine,
    installDockerode: engine === 'docker' && !repository.dependencies.includes('dockerode'),
    ...(login ? { registryHost: login.host, login } : {}),
    pythonBuild: plan.artifacts.some(
      (a) =>
        a.name === 'cli' && a.value && JSON.stringify(a.value['build'] ?? '').includes('python3 -m build'),
    ),
    web: webs.length > 0,
    ...(webs.length > 1 ? { webs } : {}),
    manager: repository.manager,
    node: repository.node,
    tags: repository.tags,
  };
}

/**
 * The variable each web client's URL is in, for the CI's verify: the service's own URL for the
 * first (or only) one, `<NAME>_URL` for every other (an admin dashboard at its own address).
 */
export function webUrlVariables(facts: PipelineFacts): { name?: string; variable: string }[] {
  if (!facts.web) return [];
  if (!facts.webs) return [{ variable: 'SERVICE_URL' }];
  return facts.webs.map((name, i) => ({
    name,
    variable: i === 0 ? 'SERVICE_URL' : `${name.toUpperCase().replace(/-/g, '_')}_URL`,
  }));
}

/**
 * verify's `--web-url` flags for a CI shell line: one bare URL for one web client; with several,
 * `name=URL` each, the others only when their variable is set (unset: verify lists them as not
 * read, and the release still verifies).
 */
export function webUrlFlags(facts: PipelineFacts): string {
  return webUrlVariables(facts)
    .map(({ name, variable }) =>
      name === undefined
        ? ` --web-url "$${variable}"`
        : variable === 'SERVICE_URL'
          ? ` --web-url ${name}="$${variable}"`
          : ` ${'$'}{${variable}:+--web-url ${name}="$${variable}"}`,
    )
    .join('');
}
