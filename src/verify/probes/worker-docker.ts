import { type RoleCommand, roleOfCommand } from '../../config/role-of-command.ts';
import type { SwarmTask } from '../../deployment-engines/swarm/swarm.ts';
import { type ImageService, readImageServices } from '../../deployment-engines/swarm/swarm-image-services.ts';
import type { NodeView } from '../../deployment-engines/swarm/swarm-views.ts';
import { firstEnvValue, workerVersionOf } from '../../docker-client/container-facts.ts';
import { dockerClientAt, engineAddress } from '../../docker-client/engine-address.ts';
import { type ImageContainer, readImageContainers } from '../../docker-client/image-containers.ts';
import { splitImageRef } from '../../registry/image-ref.ts';
import { printable } from '../../text/printable.ts';
import { type SwarmTaskReading, swarmNodeReadings } from '../swarm-node-readings.ts';
import type { ArtifactName, ProbeResult } from '../types.ts';

export interface DockerProbeOptions {
  /** `--docker-host`: `unix:///path`, a socket path, or `tcp://host:port`; else DOCKER_HOST, else the default socket. */
  host?: string;
  /** The worker's repository from the config (`artifacts.worker.image`). */
  image: string;
  /** Which artifact the image is (default worker): `--registry` also reads API and web digests. */
  name?: ArtifactName;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  /**
   * A Compose project (`release verify --compose`): only its containers, found by Compose's
   * project label, running or not; no Swarm services.
   */
  composeProject?: string;
  /** The project's one-shot jobs (a migration): a container of one that exited 0 is done, not stopped. */
  oneShots?: string[];
  /**
   * The variables the version may be in, the service's own first (`ACME_VERSION`), then
   * `SERVICE_VERSION`: the first one set counts. Default: `SERVICE_VERSION`.
   */
  envNames?: readonly string[];
  /**
   * The roles run from this image (`roleCommands`): with more than one, each container or
   * service is reported as the role its command runs, and a role nothing runs is a finding.
   */
  roles?: readonly RoleCommand[];
}

/**
 * The worker as the Docker engine runs it: every container and every Swarm service whose image is
 * of the worker's repository, each with the version found in its `SERVICE_VERSION`, its
 * `org.opencontainers.image.version` label and its image tag. An engine that cannot be reached,
 * or runs no worker, gives one result with `error`.
 */
export async function probeWorkerDocker(options: DockerProbeOptions): Promise<ProbeResult[]> {
  const where = engineAddress(options);
  const docker = dockerClientAt(where, options.timeoutMs);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the engine gave no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
  });
  try {
    const names = options.envNames?.length ? options.envNames : ['SERVICE_VERSION'];
    // A Compose project is its containers only; a whole engine also runs Swarm services.
    const [listed, swarm] = await Promise.race([
      Promise.all([
        readImageContainers(docker, {
          repository: options.image,
          ...(options.composeProject ? { composeProject: options.composeProject } : {}),
          oneShots: new Set(options.oneShots ?? []),
          envNames: names,
        }),
        options.composeProject
          ? Promise.resolve({ services: [], nodes: [] })
          : readImageServices(docker, {
              repository: options.image,
              envNames: names,
              ...(options.roles?.some((r) => r.role === 'job')
                ? { runsOnce: (argv) => roleOfCommand(argv, options.roles!)?.role === 'job' }
                : {}),
            }),
      ]),
      deadline,
    ]);
    const containers = listed.map(containerReading);
    // On one node the manager's view is the whole truth: no per-node readings.
    const nodes = swarm.nodes.length > 1 ? swarm.nodes : [];
    const services = swarm.services.flatMap((s) => serviceReadings(s, nodes, names));
    // A Swarm task's container is its service, already read from the service's spec: counting
    // it twice would report one workload as two.
    const serviceIds = new Set(services.map((s) => s.serviceId));
    const standalone = containers.filter((c) => !c.serviceId || !serviceIds.has(c.serviceId));
    const name = options.name ?? 'worker';
    const roles = options.roles ?? [];
    // A job is told by its role even when it is its image's only one: it is read by its last run.
    if (roles.length > 1 || roles.some((r) => r.role === 'job'))
      return byRole([...services, ...standalone], roles, options, where.label);
    const found = [...services, ...standalone].map(({ serviceId: _, argv: __, ...result }) => ({
      ...result,
      name,
    }));
    if (found.length === 0) {
      return [
        failed(
          options.name ?? 'worker',
          where.label,
          options.composeProject
            ? `no container of Compose project "${options.composeProject}" runs an image of "${options.image}"`
            : `no container or Swarm service on this engine runs an image of "${options.image}"`,
        ),
      ];
    }
    return found;
  } catch (error) {
    return [
      failed(
        options.name ?? 'worker',
        where.label,
        `cannot read the Docker engine: ${(error as Error).message}`,
      ),
    ];
  } finally {
    clearTimeout(timer);
  }
}

type Read = ProbeResult & { serviceId?: string; argv?: string[] };

/**
 * One image, several roles: each reading is reported as the role its command runs (its artifact
 * in `role`, its row named by the role's kind: api, worker or web), and each role that nothing
 * runs gets a reading with an error of its own, so verify shows one row per role. A container
 * of the image no declared role runs (a one-shot migration) stays a worker reading, as before.
 */
function byRole(
  reads: Read[],
  roles: readonly RoleCommand[],
  options: DockerProbeOptions,
  where: string,
): ProbeResult[] {
  const seen = new Set<string>();
  const found = reads.map(({ serviceId: _, argv, ...result }): ProbeResult => {
    const role = roleOfCommand(argv ?? [], roles);
    if (!role) return { ...result, name: 'worker' };
    seen.add(role.artifact);
    if (role.role === 'job') return jobReading(result, role.artifact);
    return { ...result, name: role.role ?? 'worker', role: role.artifact };
  });
  const missing = roles
    .filter((r) => !seen.has(r.artifact))
    .map((r) => ({
      ...failed(
        r.role ?? 'worker',
        where,
        `no ${options.composeProject ? `container of Compose project "${options.composeProject}"` : 'container or Swarm service on this engine'} runs "${options.image}" as artifacts.${r.artifact}${r.command ? ` (command ${r.command.join(' ')})` : ''}`,
      ),
      role: r.artifact,
    }));
  return [...lastRuns(found), ...missing];
}

/** A job's container or service as the reading of one run: done when it exited 0. */
function jobReading(result: ProbeResult, artifact: string): ProbeResult {
  const finished = result.running === false && result.exitCode === 0;
  const how =
    result.running !== false
      ? 'running now'
      : result.exitCode === undefined
        ? 'never ran'
        : finished
          ? 'completed (exit 0)'
          : `failed (exit ${result.exitCode})`;
  const from = result.detail?.split(';')[0] ?? '';
  const { finished: _, ...rest } = result;
  return {
    ...rest,
    name: 'job',
    role: artifact,
    detail: `${from}; a one-shot job, last run ${how}`,
    ...(finished ? { finished: true } : {}),
  };
}

/** Of a job's runs (old containers, a task before the last update), only the last one counts. */
function lastRuns(readings: ProbeResult[]): ProbeResult[] {
  const last = new Map<string, ProbeResult>();
  for (const r of readings) {
    if (r.name !== 'job') continue;
    const seen = last.get(r.role!);
    if (!seen || (r.at ?? 0) > (seen.at ?? 0)) last.set(r.role!, r);
  }
  return readings.filter((r) => r.name !== 'job' || last.get(r.role!) === r);
}

/** A container as a reading; a Swarm task's keeps its service, so it is counted once. */
function containerReading(c: ImageContainer): Read {
  const compose = c.composeService ? `, compose service ${c.composeService}` : '';
  return withService(
    c.swarmServiceId,
    reading({ ...c, source: `container ${c.id.slice(0, 12)} (${c.name}${compose})` }),
  );
}

/**
 * A service as readings: its spec's, then, on a swarm of more than one node, what the manager's
 * view hides (a lost node, an old task still running), each reported as the service's role.
 * Exported for its unit test: only a real multi-node swarm shows it otherwise.
 */
export function serviceReadings(service: ImageService, nodes: NodeView[], names: readonly string[]): Read[] {
  const source = `service ${service.id.slice(0, 12)} (${service.name ?? '?'})`;
  if (service.lastRun)
    return [withService(service.id, lastRunReading(service, service.lastRun, source, names))];
  const own = withService(
    service.id,
    reading({
      ...service,
      source,
      running: service.replicas !== 0,
      state: service.replicas === undefined ? 'global' : `${service.replicas} replicas`,
    }),
  );
  const perNode = swarmNodeReadings({
    name: 'worker',
    service: service.name ?? service.id.slice(0, 12),
    tasks: service.tasks.map((task) => taskReading(task, names)),
    nodes,
    versionOf: (task) =>
      workerVersionOf({
        ...(task.env ? { env: printable(task.env) } : {}),
        ...(splitImageRef(task.image).tag ? { tag: printable(splitImageRef(task.image).tag!) } : {}),
      }),
  }).map((r) => ({ ...withService(service.id, r), argv: service.argv }));
  return [own, ...perNode];
}

/** Task states of a run not yet ended (swarmkit's, before `running` and `complete`). */
const UNDERWAY = new Set([
  'new',
  'pending',
  'assigned',
  'accepted',
  'preparing',
  'ready',
  'starting',
  'running',
]);

/**
 * A one-shot service (a replicated job, or restart policy none) read by its last task: the image
 * and environment that run had, and how it ended (`complete` is exit 0).
 */
function lastRunReading(
  service: ImageService,
  task: SwarmTask,
  source: string,
  names: readonly string[],
): Read {
  const env = firstEnvValue(task.env, names);
  const ended = !UNDERWAY.has(task.state);
  const exitCode = task.state === 'complete' ? 0 : (task.exitCode ?? (ended ? -1 : undefined));
  return {
    ...reading({
      ...service,
      ...env,
      reference: task.image || service.reference,
      source: `${source} task ${task.id.slice(0, 12)}`,
      running: !ended,
      state: `task ${task.state}${task.error ? `: ${task.error}` : ''}`,
      ...(ended && exitCode !== undefined ? { exitCode } : {}),
      at: task.since,
    }),
    argv: service.argv,
  };
}

function taskReading(task: SwarmTask, names: readonly string[]): SwarmTaskReading {
  return {
    id: task.id,
    nodeId: task.nodeId,
    desired: task.desired,
    state: task.state,
    image: task.image,
    env: firstEnvValue(task.env, names).env,
    ...(task.slot !== undefined ? { slot: task.slot } : {}),
    ...(task.versionIndex !== undefined ? { index: task.versionIndex } : {}),
  };
}

function withService(serviceId: string | undefined, result: ProbeResult): Read {
  return serviceId ? { ...result, serviceId } : result;
}

interface Found {
  source: string;
  reference: string;
  env: string | undefined;
  /** The variable `env` was read from (`ACME_VERSION`, `SERVICE_VERSION`). */
  envName?: string | undefined;
  /** What it runs: entrypoint then command (tells the roles of one image apart). */
  argv?: string[];
  label: string | undefined;
  digest: string | undefined;
  running: boolean;
  state: string;
  /** A one-shot job's container that exited 0: its work is done. */
  finished?: boolean;
  exitCode?: number;
  at?: number;
}

function reading(found: Found): Read {
  const tag = splitImageRef(found.reference).tag;
  const evidence = {
    ...(found.env ? { env: printable(found.env) } : {}),
    ...(found.label ? { label: printable(found.label) } : {}),
    ...(tag ? { tag: printable(tag) } : {}),
  };
  const { version, from } = workerVersionOf(evidence, found.envName);
  return {
    ...(found.argv ? { argv: found.argv } : {}),
    name: 'worker',
    source: found.source,
    version,
    detail: `${from}; ${found.finished ? 'a one-shot job, completed (exit 0)' : found.state}`,
    ...(found.finished ? { finished: true } : {}),
    ...(found.exitCode !== undefined ? { exitCode: found.exitCode } : {}),
    ...(found.at ? { at: found.at } : {}),
    image: printable(found.reference, { max: 200 }),
    ...(found.digest ? { digest: found.digest } : {}),
    evidence,
    running: found.running,
  };
}

function failed(name: ArtifactName, source: string, error: string): ProbeResult {
  return { name, source, version: undefined, error: printable(error, { max: 300 }) };
}
