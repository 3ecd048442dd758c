import { open, readdir, readlink } from 'node:fs/promises';
import { isImageOf } from '../registry/image-ref.ts';
import type { DockerClient } from './connect.ts';

/** Compose's label on the containers of a project. */
const COMPOSE_PROJECT = 'com.docker.compose.project';
/** /proc/net/tcp of a busy host is a few hundred KB; more than this is not read. */
const MAX_PROC_BYTES = 4 * 1024 * 1024;

/** One running workload of an image, and the TCP ports it can be reached on at the engine's host. */
export interface PublishedWorkload {
  /** What it runs: entrypoint then command (tells the roles of one image apart). */
  argv: string[];
  ports: number[];
  /** Where the ports come from, for the message that names them. */
  how: 'published' | 'host network' | 'swarm';
}

export interface PublishedQuery {
  repository: string;
  composeProject?: string;
  /**
   * Whether the engine runs on this machine (a unix socket): a container on the host's network
   * publishes nothing, and the ports its processes listen on are then read from /proc.
   */
  local: boolean;
}

/**
 * The running containers (and, on a whole engine, Swarm services) of an image with the ports they
 * answer on at the engine's host: a bridge container's published ports, a host-network container's
 * listening sockets (or its image's EXPOSE when /proc cannot tell), a Swarm service's published
 * ports. What `release verify --docker` without `--url` finds the API at.
 */
export async function publishedWorkloads(
  docker: DockerClient,
  query: PublishedQuery,
): Promise<PublishedWorkload[]> {
  const listed = await docker.listContainers({
    filters: {
      status: ['running'],
      ...(query.composeProject ? { label: [`${COMPOSE_PROJECT}=${query.composeProject}`] } : {}),
    },
  });
  const containers = await Promise.all(
    listed
      .filter((c) => isImageOf(c.Image, query.repository) || c.Image.startsWith('sha256:'))
      .map(async (summary): Promise<PublishedWorkload | undefined> => {
        const container = docker.getContainer(summary.Id);
        // A container removed between the list and this read is simply gone, not an unreadable engine.
        const info = await container.inspect().catch(() => undefined);
        if (!info || !isImageOf(info.Config.Image, query.repository)) return undefined;
        const argv = [...(info.Config.Entrypoint ?? []), ...(info.Config.Cmd ?? [])];
        if (info.HostConfig.NetworkMode === 'host') {
          const listening = query.local ? await listeningPorts(container).catch(() => []) : [];
          const ports = listening.length > 0 ? listening : exposedPorts(info.Config.ExposedPorts);
          return { argv, ports, how: 'host network' };
        }
        return { argv, ports: hostPorts(info.NetworkSettings.Ports), how: 'published' };
      }),
  );
  const services = query.composeProject ? [] : await swarmServices(docker, query.repository);
  return [...containers.filter((c): c is PublishedWorkload => c !== undefined), ...services];
}

/** `{"8080/tcp": [{HostIp, HostPort}]}` -> the host's TCP ports. */
function hostPorts(
  bindings: Record<string, { HostIp?: string; HostPort?: string }[] | null> | undefined,
): number[] {
  const ports = Object.entries(bindings ?? {})
    .filter(([key]) => key.endsWith('/tcp'))
    .flatMap(([, hosts]) => (hosts ?? []).map((h) => Number(h.HostPort)));
  return unique(ports);
}

function exposedPorts(exposed: Record<string, unknown> | undefined): number[] {
  return unique(
    Object.keys(exposed ?? {})
      .filter((key) => key.endsWith('/tcp'))
      .map((key) => Number(key.split('/')[0])),
  );
}

/** A whole engine's Swarm services of the image, with the ports their ingress publishes. */
async function swarmServices(docker: DockerClient, repository: string): Promise<PublishedWorkload[]> {
  // Not a manager (or no Swarm): no services to read.
  const services = await docker.listServices().catch(() => []);
  type ContainerSpec = { Image?: string; Command?: string[]; Args?: string[] };
  const specOf = (s: (typeof services)[number]) =>
    (s.Spec?.TaskTemplate as { ContainerSpec?: ContainerSpec } | undefined)?.ContainerSpec;
  return services
    .filter((s) => isImageOf(specOf(s)?.Image ?? '', repository))
    .map((s) => {
      const spec = specOf(s)!;
      return {
        argv: [...(spec.Command ?? []), ...(spec.Args ?? [])],
        ports: unique(
          (s.Endpoint?.Ports ?? [])
            .filter((p) => (p.Protocol ?? 'tcp') === 'tcp')
            .map((p) => Number(p.PublishedPort)),
        ),
        how: 'swarm' as const,
      };
    });
}

/**
 * The TCP ports the container's processes listen on: their sockets (/proc/<pid>/fd) matched with
 * the listening entries of their network namespace (/proc/<pid>/net/tcp{,6}), as `ss -lp` does.
 */
async function listeningPorts(container: {
  top(): Promise<{ Titles: string[]; Processes: string[][] }>;
}): Promise<number[]> {
  const top = await container.top();
  const column = top.Titles.indexOf('PID');
  const pids = top.Processes.map((p) => p[column]).filter((p): p is string => /^\d+$/.test(p ?? ''));
  const ports: number[] = [];
  for (const pid of pids) {
    const inodes = await socketInodes(pid);
    if (inodes.size === 0) continue;
    for (const table of ['tcp', 'tcp6']) {
      const text = await readBounded(`/proc/${pid}/net/${table}`).catch(() => '');
      ports.push(...listeningOf(text, inodes));
    }
  }
  return unique(ports);
}

async function socketInodes(pid: string): Promise<Set<string>> {
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => []);
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return new Set(
    links.map((l) => /^socket:\[(\d+)\]$/.exec(l)?.[1]).filter((i): i is string => i !== undefined),
  );
}

/**
 * The listening ports (state 0A) of a /proc/net/tcp table whose socket inode is one of `inodes`.
 * Each line: `sl local_address rem_address st ... uid timeout inode`, the port in hex after the colon.
 */
export function listeningOf(table: string, inodes: ReadonlySet<string>): number[] {
  const ports: number[] = [];
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10 || fields[3] !== '0A' || !inodes.has(fields[9]!)) continue;
    const port = Number.parseInt(fields[1]!.split(':').at(-1)!, 16);
    if (port > 0 && port < 65_536) ports.push(port);
  }
  return ports;
}

async function readBounded(path: string): Promise<string> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(MAX_PROC_BYTES);
    let length = 0;
    for (;;) {
      const { bytesRead } = await file.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0 || length + bytesRead >= buffer.length)
        return buffer.toString('latin1', 0, length + bytesRead);
      length += bytesRead;
    }
  } finally {
    await file.close();
  }
}

function unique(ports: number[]): number[] {
  return [...new Set(ports.filter((p) => Number.isInteger(p) && p > 0 && p < 65_536))].sort((a, b) => a - b);
}
