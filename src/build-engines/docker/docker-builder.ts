import { realpathSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { ExternalError } from '../../errors.ts';
import { printable } from '../../text/printable.ts';

/**
 * How an image is built with BuildKit: `docker buildx build` where the docker CLI has the buildx
 * plugin, else the CLI's own BuildKit (`DOCKER_BUILDKIT=1 docker build`), which the docker CLI
 * has built in from 18.09 to 22.x only: from 23 on, `docker build` hands BuildKit builds to buildx
 * and refuses without it ("the buildx component is missing").
 */
export type BuilderKind = 'buildx' | 'buildkit';

export interface DockerBuilder {
  /** The docker CLI's path. */
  cli: string;
  kind: BuilderKind;
  /** `docker 20.10.24 (its own BuildKit)`, `docker 27.1.1 with buildx v0.16.2`: said in the output. */
  description: string;
}

/** The environment variable naming the docker CLI to build with (a path, or a name on PATH). */
export const DOCKER_CLI_ENV = 'DOCKER_CLI';

const PROBE_MS = 15_000;

/**
 * The builder to use: the CLI `DOCKER_CLI` names, else the first `docker` on PATH that can build
 * with BuildKit (a CLI 23+ without buildx is passed over for a later one that can). Refuses with
 * every CLI tried and why, when none can.
 */
export async function findDockerBuilder(env: Record<string, string | undefined>): Promise<DockerBuilder> {
  const named = env[DOCKER_CLI_ENV]?.trim();
  const candidates = named ? [named] : dockerOnPath(env['PATH'] ?? '');
  const tried: string[] = [];
  for (const cli of candidates) {
    const found = await probe(cli, env);
    if ('kind' in found) return found;
    tried.push(`${printable(cli)}: ${found.reason}`);
  }
  throw new ExternalError(
    'DOCKER_BUILDKIT_MISSING',
    `no docker CLI here can build with BuildKit${tried.length ? `:\n  ${tried.join('\n  ')}` : ' (no docker on PATH)'}`,
    {
      hint: named
        ? `${DOCKER_CLI_ENV} names a docker CLI that cannot build with BuildKit: install the buildx plugin for it, or name a docker CLI 20.10-22 (its own BuildKit)`
        : `install the buildx plugin (docker-buildx-plugin), or set ${DOCKER_CLI_ENV} to a docker CLI 20.10-22, whose own BuildKit builds; or build without Docker (--engine oci)`,
    },
  );
}

/** One CLI: buildx when `docker buildx version` answers, else its own BuildKit when it is 18.09-22. */
export async function probe(
  cli: string,
  env: Record<string, string | undefined>,
): Promise<DockerBuilder | { reason: string }> {
  const run = (args: string[]) =>
    execa(cli, args, { env, extendEnv: false, reject: false, timeout: PROBE_MS, stdin: 'ignore' });
  const version = await run(['--version']);
  if (version.failed && version.exitCode === undefined)
    return { reason: `cannot run it (${printable(version.shortMessage ?? 'not found', { max: 160 })})` };
  const client = /(\d+)\.(\d+)\.(\d+)/.exec(version.stdout);
  if (!client) return { reason: `"${printable(version.stdout, { max: 80 })}" is not a docker CLI version` };
  const [, major, minor] = client.map(Number) as [number, number, number];
  const buildx = await run(['buildx', 'version']);
  if (buildx.exitCode === 0) {
    const plugin = /v?\d+\.\d+\.\d+\S*/.exec(buildx.stdout)?.[0] ?? 'unknown version';
    return { cli, kind: 'buildx', description: `docker ${client[0]} with buildx ${plugin}` };
  }
  if (major < 18 || (major === 18 && minor < 9))
    return { reason: `docker ${client[0]} predates BuildKit (18.09)` };
  if (major >= 23)
    return { reason: `docker ${client[0]} has no buildx, and from 23 on its own build needs it` };
  return { cli, kind: 'buildkit', description: `docker ${client[0]} (its own BuildKit)` };
}

/** Every executable `docker` on PATH, in order, each real file once. */
function dockerOnPath(path: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const file = join(dir, 'docker');
    try {
      if (!(statSync(file).mode & 0o111)) continue;
      const real = realpathSync(file);
      if (seen.has(real)) continue;
      seen.add(real);
      out.push(file);
    } catch {
      // not there
    }
  }
  return out;
}
