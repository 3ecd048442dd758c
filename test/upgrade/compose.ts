import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type Docker from 'dockerode';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { writeReferenceConfig } from '../helpers/reference-config.ts';
import { freePort, type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { buildRelease, waitFor } from './swarm.ts';

const run = promisify(execFile);

/**
 * A Compose deployment to upgrade, written the way self-hosted projects write theirs: a private
 * dockerd (no Swarm, no bridge: every service on the host network), a real registry, images of
 * two releases made by `release build`, and a project started by hand with Debian's
 * `docker-compose` from a file with `${VAR:-default}` images, a fixed `container_name`, two worker
 * replicas, a scheduler running the worker image with another command and a one-shot `init` job
 * (the worker's image too) that API and worker wait for (`service_completed_successfully`), and
 * the web client's server.
 */
export interface ComposeRig {
  engine: Dockerd;
  docker: Docker;
  registry: RunningRegistry;
  repo: GitRepo;
  namespace: string;
  apiUrl: string;
  /** The web client's server, on the host network like the rest. */
  webUrl: string;
  /** The user's compose file. Its directory's name (`shop`) is the project name Compose picks. */
  file: string;
  project: string;
  digests: Record<string, { api: string; worker: string; web?: string }>;
  stop(): Promise<void>;
}

export const PROJECT = 'shop';

export function composeFile(namespace: string, apiPort: number, webPort: number): string {
  return `# A self-hosted deployment, as its operators keep it: nothing in it knows about release tooling.
version: "3.8"
x-host: &host
  network_mode: host
  stop_grace_period: 2s
services:
  init:
    <<: *host
    image: \${WORKER_IMAGE:-${namespace}/service-worker:v1.0.0}
    command: ["-e", "console.log('migrations applied')"]
  api:
    <<: *host
    image: \${API_IMAGE:-${namespace}/service-api:v1.0.0}
    container_name: shop-api
    environment:
      PORT: "${apiPort}"
      HOST: 127.0.0.1
    depends_on:
      init:
        condition: service_completed_successfully
  worker:
    <<: *host
    image: \${WORKER_IMAGE:-${namespace}/service-worker:v1.0.0}
    environment:
      WORKER_HEALTH_HOST: 127.0.0.1
      WORKER_HEALTH_PORT: "0"
    deploy:
      replicas: 2
    depends_on:
      init:
        condition: service_completed_successfully
      api:
        condition: service_started
  scheduler:
    <<: *host
    image: \${WORKER_IMAGE:-${namespace}/service-worker:v1.0.0}
    command: ["-e", "process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 60000)"]
  web:
    <<: *host
    image: \${WEB_IMAGE:-${namespace}/service-web:v1.0.0}
    environment:
      PORT: "${webPort}"
      HOST: 127.0.0.1
      API_URL: http://127.0.0.1:${apiPort}
`;
}

export async function startComposeRig(): Promise<ComposeRig> {
  // Fail fast, with the remedy, before starting anything that would need cleaning up.
  await run('docker-compose', ['version', '--short'], { timeout: 30_000 }).catch((error: Error) => {
    throw new Error(`docker-compose does not run here (apt-get install docker-compose): ${error.message}`);
  });
  const [engine, registry] = await Promise.all([startDockerd(), startRegistry()]);
  const repo = GitRepo.create('compose-');
  const root = mkdtempSync('/tmp/sr-compose-');
  const stop = async () => {
    await Promise.all([engine.stop(), registry.stop()]);
    repo.remove();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const namespace = `${registry.host}/acme`;
    writeReferenceConfig(repo.dir, { registry: namespace });
    const digests: ComposeRig['digests'] = {};
    for (const tag of ['v1.0.0', 'v2.0.0'])
      digests[tag] = await buildRelease(repo, namespace, tag, { web: true });
    const [apiPort, webPort] = [await freePort(), await freePort()];
    const dir = join(root, PROJECT);
    mkdirSync(dir);
    const file = join(dir, 'docker-compose.yml');
    writeFileSync(file, composeFile(namespace, apiPort, webPort));
    return {
      engine,
      docker: engine.docker,
      registry,
      repo,
      namespace,
      apiUrl: `http://127.0.0.1:${apiPort}`,
      webUrl: `http://127.0.0.1:${webPort}`,
      file,
      project: PROJECT,
      digests,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Debian's docker-compose on the rig's project, as its operator runs it (`env`: variables for the file). */
export async function composeByHand(
  rig: ComposeRig,
  args: string[],
  env: Record<string, string> = {},
): Promise<void> {
  await run('docker-compose', ['-f', rig.file, ...args], {
    cwd: join(rig.file, '..'),
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/tmp',
      DOCKER_HOST: rig.engine.host,
      ...env,
    },
    timeout: 120_000,
  });
}

/** `docker-compose up -d` by hand, as the operator started the project; waits until the API answers `tag`. */
export async function composeUpByHand(rig: ComposeRig, tag: string): Promise<void> {
  await composeByHand(rig, ['up', '-d']);
  await waitFor(async () => {
    const res = await fetch(`${rig.apiUrl}/api/version`, { signal: AbortSignal.timeout(2_000) }).catch(
      () => undefined,
    );
    return res?.ok ? ((await res.json()) as { version: string }).version === tag || undefined : undefined;
  }, 90_000);
}

/** The flags that point `release upgrade` at the rig's project. */
export function composeTarget(rig: ComposeRig): string[] {
  return [
    ...['--compose', rig.file, '--url', rig.apiUrl, '--docker-host', rig.engine.host],
    ...['--service', 'api=api', '--service', 'worker=worker'],
  ];
}

/** Each long-running container of the project: service -> sorted image references it was created from. */
export async function runningImages(rig: ComposeRig): Promise<Record<string, string[]>> {
  const containers = await rig.docker.listContainers({
    filters: { label: [`com.docker.compose.project=${rig.project}`], status: ['running'] },
  });
  const byService: Record<string, string[]> = {};
  for (const c of containers) {
    const info = await rig.docker.getContainer(c.Id).inspect();
    const service = info.Config.Labels['com.docker.compose.service']!;
    byService[service] = [...(byService[service] ?? []), info.Config.Image];
  }
  for (const list of Object.values(byService)) list.sort();
  return byService;
}

export function sha256Of(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}
