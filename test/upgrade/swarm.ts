import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { pushImage } from '../../src/build-engines/docker/push-image.ts';
import { followProgress, progressError } from '../../src/docker-client/connect.ts';
import { packTar } from '../../src/oci-image/layer.ts';
import { openStore } from '../../src/registry/open-store.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { writeReferenceConfig } from '../helpers/reference-config.ts';
import { freePort, type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

/**
 * A deployment to upgrade: a private dockerd in swarm mode, a real registry, images of two
 * releases made by `release build`, and an API and a worker service running the first one.
 * The API is on the host network (the only one this dockerd has) on a port of its own; the worker
 * is attached to no network (nothing connects to it: verify reads it from the engine).
 *
 * The API starts through a small launcher (bind-mounted from `launchDir`) that `failNextStart`
 * can arm: the next start of that version exits 2 at once, once, as a task does that meets its
 * host port still held by the task before it. Unarmed, it only runs the image's own entry point.
 */
export interface SwarmRig {
  engine: Dockerd;
  docker: Docker;
  registry: RunningRegistry;
  repo: GitRepo;
  /** `<registry host>/acme` */
  namespace: string;
  apiPort: number;
  apiUrl: string;
  /** Digests per tag and artifact, as pushed. */
  digests: Record<string, { api: string; worker: string }>;
  /** Host directory mounted at LAUNCH_TARGET in the API's tasks: the launcher and its marker. */
  launchDir: string;
  stop(): Promise<void>;
}

export const API_SERVICE = 'svc_api';
export const WORKER_SERVICE = 'svc_worker';

const LAUNCH_TARGET = '/launch';
const FAIL_MARKER = 'fail-next-start';

/**
 * Runs the API image's entry point, unless the marker names this task's version: then it removes
 * the marker and exits 2 (what the API does when its port is in use) without starting anything.
 */
const LAUNCHER = `import { readFileSync, rmSync } from 'node:fs';
const marker = '${LAUNCH_TARGET}/${FAIL_MARKER}';
let armed;
try { armed = readFileSync(marker, 'utf8').trim(); } catch {}
if (armed && armed === process.env.SERVICE_VERSION) {
  rmSync(marker);
  process.stderr.write('launcher: this start of ' + armed + ' fails once, as the test asked\\n');
  process.exit(2);
}
await import('file:///app/main.mjs');
`;

/** The flags that point `release upgrade` at the rig: its API, its engine, its two services. */
export function rigTarget(rig: SwarmRig): string[] {
  return [
    ...['--url', rig.apiUrl, '--docker-host', rig.engine.host],
    ...['--service', `api=${API_SERVICE}`, '--service', `worker=${WORKER_SERVICE}`],
  ];
}

/** Make the next start of an API task of `version` exit 2, once. */
export function failNextStart(rig: SwarmRig, version: string): void {
  writeFileSync(join(rig.launchDir, FAIL_MARKER), version);
}

/** Path of the marker on the host: gone once a task met it. */
export function failMarker(rig: SwarmRig): string {
  return join(rig.launchDir, FAIL_MARKER);
}

export async function startSwarmRig(): Promise<SwarmRig> {
  const [engine, registry] = await Promise.all([startDockerd(), startRegistry()]);
  const docker = engine.docker;
  const repo = GitRepo.create('upgrade-');
  // The API's tasks run as nobody: they must read the launcher and remove the marker.
  const launchDir = mkdtempSync('/tmp/sr-upgrade-launch-');
  chmodSync(launchDir, 0o777);
  writeFileSync(join(launchDir, 'launcher.mjs'), LAUNCHER, { mode: 0o644 });
  const stop = async () => {
    await Promise.all([engine.stop(), registry.stop()]);
    repo.remove();
    rmSync(launchDir, { recursive: true, force: true });
  };
  try {
    const namespace = `${registry.host}/acme`;
    writeReferenceConfig(repo.dir, { registry: namespace });
    await docker
      .swarmInit({ ListenAddr: '127.0.0.1:0', AdvertiseAddr: '127.0.0.1' })
      .catch(async (error: Error) => {
        if (!/port|address/i.test(error.message)) throw error;
        await docker.swarmInit({ ListenAddr: `127.0.0.1:${await freePort()}`, AdvertiseAddr: '127.0.0.1' });
      });
    const digests: SwarmRig['digests'] = {};
    for (const tag of ['v1.0.0', 'v2.0.0']) digests[tag] = await buildRelease(repo, namespace, tag);
    const apiPort = await freePort();
    const rig: SwarmRig = {
      engine,
      docker,
      registry,
      repo,
      namespace,
      apiPort,
      apiUrl: `http://127.0.0.1:${apiPort}`,
      digests,
      launchDir,
      stop,
    };
    return rig;
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Tag the repository, stamp and build api and worker with the oci engine into the registry, tagged. */
export async function buildRelease(
  repo: GitRepo,
  namespace: string,
  tag: string,
  options: { web?: boolean } = {},
): Promise<{ api: string; worker: string; web?: string }> {
  repo.commit(tag);
  repo.tag(tag);
  const stamp = await runRelease(['stamp', '--json'], { cwd: repo.dir });
  if (stamp.code !== 0) throw new Error(`stamp ${tag}: ${stamp.stderr}`);
  const artifacts = options.web ? (['api', 'worker', 'web'] as const) : (['api', 'worker'] as const);
  const build = await runRelease(
    ['build', '--engine', 'oci', '--only', artifacts.join(','), '--push', '--json'],
    { cwd: repo.dir, timeoutMs: 180_000 },
  );
  if (build.code !== 0) throw new Error(`build ${tag}: ${build.stderr}`);
  const images = jsonOf<{ images: Record<string, { digest: string }> }>(build).images;
  // The build wrote only its build-<commit> tag. `release promote` moves every artifact of the
  // config at once (the CLI too, which this rig never builds), so the rig writes the version tag
  // of its images itself, by digest, as a promotion would.
  const store = openStore(namespace, { cwd: repo.dir, env: {}, insecure: [namespace.split('/')[0]!] });
  for (const artifact of artifacts) {
    const manifest = (await store.getManifest(`service-${artifact}`, images[artifact]!.digest))!;
    await store.putManifest(`service-${artifact}`, tag, manifest.bytes, manifest.descriptor.mediaType);
  }
  return {
    api: images['api']!.digest,
    worker: images['worker']!.digest,
    ...(images['web'] ? { web: images['web'].digest } : {}),
  };
}

/**
 * A bad release made from a good one (what a broken build looks like to the deployment): the
 * image of `from`, with `lines` added, pushed as `tag`.
 */
export async function deriveImage(
  rig: Pick<SwarmRig, 'namespace' | 'docker' | 'repo'>,
  artifact: 'api' | 'worker',
  from: string,
  tag: string,
  lines: string[],
): Promise<string> {
  const repository = `service-${artifact}`;
  const source = `${rig.namespace}/${repository}:${from}`;
  await followProgress(await rig.docker.pull(source));
  const tar = await packTar(
    [{ type: 'file', path: 'Dockerfile', content: [`FROM ${source}`, ...lines, ''].join('\n') }],
    0,
  );
  const stream = await rig.docker.buildImage(tar as unknown as NodeJS.ReadableStream, {
    t: `${rig.namespace}/${repository}:${tag}`,
    rm: true,
  });
  const error = progressError(await followProgress(stream));
  if (error) throw new Error(`docker build ${repository}:${tag}: ${error}`);
  return pushImage(rig.docker, { registry: rig.namespace, repository, tag, env: { HOME: rig.repo.dir } });
}

export function pinned(
  rig: Pick<SwarmRig, 'namespace'>,
  artifact: 'api' | 'worker',
  tag: string,
  digest: string,
): string {
  return `${rig.namespace}/service-${artifact}:${tag}@${digest}`;
}

/** Create the API and worker services on v1 and wait until the API answers v1. */
export async function createServices(rig: SwarmRig): Promise<void> {
  const hostNetwork = (await rig.docker.listNetworks({ filters: { name: ['host'] } })).find(
    (n) => n.Name === 'host',
  );
  const v1 = rig.digests['v1.0.0']!;
  await rig.docker.createService({
    Name: API_SERVICE,
    TaskTemplate: {
      ContainerSpec: {
        Image: pinned(rig, 'api', 'v1.0.0', v1.api),
        Args: [`${LAUNCH_TARGET}/launcher.mjs`],
        Env: [`PORT=${rig.apiPort}`, 'HOST=127.0.0.1'],
        Mounts: [{ Type: 'bind', Source: rig.launchDir, Target: LAUNCH_TARGET, ReadOnly: false }],
        StopGracePeriod: 2_000_000_000,
      },
      Networks: [{ Target: hostNetwork!.Id }],
      RestartPolicy: { Condition: 'on-failure', Delay: 500_000_000 },
    },
    Mode: { Replicated: { Replicas: 1 } },
    Labels: { 'com.example.owner': 'upgrade-test' },
  });
  await rig.docker.createService({
    Name: WORKER_SERVICE,
    TaskTemplate: {
      ContainerSpec: {
        Image: pinned(rig, 'worker', 'v1.0.0', v1.worker),
        Env: ['WORKER_HEALTH_HOST=127.0.0.1', 'WORKER_HEALTH_PORT=0'],
        StopGracePeriod: 2_000_000_000,
      },
      RestartPolicy: { Condition: 'on-failure', Delay: 500_000_000 },
    },
    Mode: { Replicated: { Replicas: 1 } },
  });
  await waitFor(async () => {
    const res = await fetch(`${rig.apiUrl}/api/version`, { signal: AbortSignal.timeout(2_000) }).catch(
      () => undefined,
    );
    return res?.ok
      ? ((await res.json()) as { version: string }).version === 'v1.0.0' || undefined
      : undefined;
  }, 90_000);
}

export async function serviceSpec(rig: SwarmRig, name: string): Promise<Record<string, unknown>> {
  return (await rig.docker.getService(name).inspect()).Spec as Record<string, unknown>;
}

export async function waitFor<T>(read: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
