import type Docker from 'dockerode';
import { namesVersion } from '../../channels/tags.ts';
import { type RoleCommand, roleOfCommand } from '../../config/role-of-command.ts';
import { loadDockerode } from '../../docker-client/connect.ts';
import { isImageOf, splitImageRef } from '../../registry/image-ref.ts';
import { printable } from '../../text/printable.ts';
import { type SwarmNodeReading, type SwarmTaskReading, swarmNodeReadings } from '../swarm-node-readings.ts';
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

export const OCI_VERSION_LABEL = 'org.opencontainers.image.version';

/**
 * The worker as the Docker engine runs it: every container and every Swarm service whose image is
 * of the worker's repository, each with the version found in its `SERVICE_VERSION`, its
 * `org.opencontainers.image.version` label and its image tag. An engine that cannot be reached,
 * or runs no worker, gives one result with `error`.
 */
export async function probeWorkerDocker(options: DockerProbeOptions): Promise<ProbeResult[]> {
  const where = engineAddress(options);
  // Loaded only when asked for: dockerode costs a third of a second of start-up, and is optional.
  const DockerClient = loadDockerode();
  const docker = new DockerClient({ ...where.options, timeout: options.timeoutMs });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the engine gave no answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
  });
  try {
    const names = options.envNames?.length ? options.envNames : ['SERVICE_VERSION'];
    const [containers, services] = await Promise.race([
      Promise.all([
        readContainers(docker, options.image, options.composeProject, new Set(options.oneShots ?? []), names),
        options.composeProject ? Promise.resolve([]) : readServices(docker, options.image, names),
      ]),
      deadline,
    ]);
    // A Swarm task's container is its service, already read from the service's spec: counting
    // it twice would report one workload as two.
    const serviceIds = new Set(services.map((s) => s.serviceId));
    const standalone = containers.filter((c) => !c.serviceId || !serviceIds.has(c.serviceId));
    const name = options.name ?? 'worker';
    const roles = options.roles ?? [];
    if (roles.length > 1) return byRole([...services, ...standalone], roles, options, where.label);
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
  return [...found, ...missing];
}

async function readContainers(
  docker: Docker,
  repository: string,
  project: string | undefined,
  oneShots: ReadonlySet<string>,
  names: readonly string[],
): Promise<Read[]> {
  const listed = await docker.listContainers({
    all: true,
    ...(project ? { filters: { label: [`com.docker.compose.project=${project}`] } } : {}),
  });
  // The list shows an image id instead of a name when the tag has moved on: inspect those too.
  const candidates = listed.filter((c) => isImageOf(c.Image, repository) || c.Image.startsWith('sha256:'));
  const results = await Promise.all(
    candidates.map(async (summary) => {
      const info = await docker.getContainer(summary.Id).inspect();
      const reference = info.Config.Image;
      if (!isImageOf(reference, repository)) return undefined;
      const image = await docker
        .getImage(info.Image)
        .inspect()
        .catch(() => undefined);
      const name = info.Name.replace(/^\//, '');
      const composeService = info.Config.Labels?.['com.docker.compose.service'];
      const serviceId = info.Config.Labels?.['com.docker.swarm.service.id'];
      const argv = [...(info.Config.Entrypoint ?? []), ...(info.Config.Cmd ?? [])];
      return withService(
        serviceId,
        reading({
          source: `container ${info.Id.slice(0, 12)} (${name}${composeService ? `, compose service ${composeService}` : ''})`,
          reference,
          ...envValue(info.Config.Env, names),
          argv,
          label: info.Config.Labels?.[OCI_VERSION_LABEL],
          digest: repoDigest(image?.RepoDigests, reference),
          running: info.State.Running,
          state: info.State.Status,
          finished:
            !info.State.Running &&
            info.State.ExitCode === 0 &&
            composeService !== undefined &&
            oneShots.has(composeService),
        }),
      );
    }),
  );
  return results.filter((r): r is Read => r !== undefined);
}

async function readServices(docker: Docker, repository: string, names: readonly string[]): Promise<Read[]> {
  let services: Docker.Service[];
  try {
    services = await docker.listServices();
  } catch (error) {
    // Not a Swarm manager: there are simply no services to read.
    if ((error as { statusCode?: number }).statusCode === 503) return [];
    throw error;
  }
  const nodes = await readNodes(docker);
  const results = await Promise.all(
    services.map(async (service) => {
      const spec = service.Spec?.TaskTemplate as { ContainerSpec?: Docker.ContainerSpec } | undefined;
      const reference = spec?.ContainerSpec?.Image;
      if (!reference || !isImageOf(reference, repository)) return undefined;
      // On more than one node, the manager's spec is not the whole truth: a lost node, or one that
      // came back with an old container, runs what the spec no longer says.
      const perNode =
        nodes.length > 1
          ? swarmNodeReadings({
              name: 'worker',
              service: service.Spec?.Name ?? service.ID.slice(0, 12),
              tasks: await readTasks(docker, service.ID, names),
              nodes,
              versionOf: (task) =>
                workerVersionOf({
                  ...(task.env ? { env: printable(task.env) } : {}),
                  ...(splitImageRef(task.image).tag
                    ? { tag: printable(splitImageRef(task.image).tag!) }
                    : {}),
                }),
            }).map((r) => withService(service.ID, r))
          : [];
      const ref = splitImageRef(reference);
      // The version label lives on the image, not in the service spec: read it from the engine's
      // copy when it has one.
      const image = await docker
        .getImage(ref.tag ? `${ref.repository}:${ref.tag}` : (ref.digest ?? ref.repository))
        .inspect()
        .catch(() => undefined);
      const replicas = (service.Spec?.Mode as { Replicated?: { Replicas?: number } } | undefined)?.Replicated
        ?.Replicas;
      // A service's command: its spec's (Compose's `command:` becomes Args), else the image's.
      const container = spec?.ContainerSpec as { Command?: string[]; Args?: string[] } | undefined;
      const argv = [
        ...(container?.Command ?? image?.Config?.Entrypoint ?? []),
        ...(container?.Args ?? (container?.Command ? [] : (image?.Config?.Cmd ?? []))),
      ];
      const own = withService(
        service.ID,
        reading({
          source: `service ${service.ID.slice(0, 12)} (${service.Spec?.Name ?? '?'})`,
          reference,
          ...envValue(spec?.ContainerSpec?.Env, names),
          argv,
          label:
            spec?.ContainerSpec?.Labels?.[OCI_VERSION_LABEL] ?? image?.Config?.Labels?.[OCI_VERSION_LABEL],
          digest: ref.digest ?? repoDigest(image?.RepoDigests, reference),
          running: replicas !== 0,
          state: replicas === undefined ? 'global' : `${replicas} replicas`,
        }),
      );
      return [own, ...perNode.map((r) => ({ ...r, argv }))];
    }),
  );
  return results.flatMap((r) => r ?? []);
}

async function readNodes(docker: Docker): Promise<SwarmNodeReading[]> {
  const nodes = (await docker.listNodes().catch(() => [])) as {
    ID: string;
    Description?: { Hostname?: string };
    Status?: { State?: string; Addr?: string };
  }[];
  return nodes.map((n) => ({
    id: n.ID,
    name: n.Description?.Hostname ?? n.ID.slice(0, 12),
    addr: n.Status?.Addr ?? '',
    state: n.Status?.State ?? 'unknown',
  }));
}

async function readTasks(
  docker: Docker,
  serviceId: string,
  names: readonly string[],
): Promise<SwarmTaskReading[]> {
  const tasks = (await docker.listTasks({ filters: { service: [serviceId] } })) as {
    ID: string;
    NodeID?: string;
    DesiredState?: string;
    Slot?: number;
    Version?: { Index?: number };
    Status?: { State?: string };
    Spec?: { ContainerSpec?: { Image?: string; Env?: string[] } };
  }[];
  return tasks.map((t) => ({
    id: t.ID,
    nodeId: t.NodeID,
    desired: t.DesiredState ?? '',
    state: t.Status?.State ?? '',
    image: t.Spec?.ContainerSpec?.Image ?? '',
    env: envValue(t.Spec?.ContainerSpec?.Env, names).env,
    ...(t.Slot !== undefined ? { slot: t.Slot } : {}),
    ...(t.Version?.Index !== undefined ? { index: t.Version.Index } : {}),
  }));
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
    image: printable(found.reference, { max: 200 }),
    ...(found.digest ? { digest: found.digest } : {}),
    evidence,
    running: found.running,
  };
}

/**
 * Which of the places a container carries a version counts: `SERVICE_VERSION` (what the worker
 * itself reports), then the OCI version label baked in at build, then the image tag unless it is a
 * floating one (`latest`, `dev`) that names no version. None of them: `unknown`.
 */
export function workerVersionOf(
  evidence: { env?: string; label?: string; tag?: string },
  envName = 'SERVICE_VERSION',
): {
  version: string;
  from: string;
} {
  if (evidence.env) return { version: evidence.env, from: envName };
  if (evidence.label) return { version: evidence.label, from: `label ${OCI_VERSION_LABEL}` };
  if (evidence.tag && namesVersion(evidence.tag)) return { version: evidence.tag, from: 'image tag' };
  return { version: 'unknown', from: 'no SERVICE_VERSION, no version label, no version tag' };
}

/** The first of `names` the env sets (non-empty), and which it was. */
function envValue(
  env: string[] | undefined,
  names: readonly string[],
): { env: string | undefined; envName?: string } {
  for (const key of names) {
    const value = env
      ?.find((e) => e.startsWith(`${key}=`))
      ?.slice(key.length + 1)
      .trim();
    if (value) return { env: value, envName: key };
  }
  return { env: undefined };
}

function repoDigest(repoDigests: string[] | undefined, reference: string): string | undefined {
  const repository = splitImageRef(reference).repository;
  const match = repoDigests?.find((d) => splitImageRef(d).repository === repository) ?? repoDigests?.[0];
  return match ? splitImageRef(match).digest : undefined;
}

export function engineAddress(options: Pick<DockerProbeOptions, 'host' | 'env'>): {
  options: Docker.DockerOptions;
  label: string;
} {
  const host = options.host ?? options.env['DOCKER_HOST'] ?? 'unix:///var/run/docker.sock';
  if (host.startsWith('unix://')) {
    const socketPath = host.slice('unix://'.length);
    return { options: { socketPath }, label: `docker ${host}` };
  }
  if (host.startsWith('/')) return { options: { socketPath: host }, label: `docker unix://${host}` };
  const url = new URL(host.replace(/^tcp:/, 'http:'));
  return {
    options: { host: url.hostname, port: url.port || 2375, protocol: 'http' },
    label: `docker ${host}`,
  };
}

function failed(name: ArtifactName, source: string, error: string): ProbeResult {
  return { name, source, version: undefined, error: printable(error, { max: 300 }) };
}
