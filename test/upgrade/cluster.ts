import type Docker from 'dockerode';
import { GitRepo } from '../helpers/git-repo.ts';
import { writeReferenceConfig } from '../helpers/reference-config.ts';
import { type RunResult, runRelease } from '../helpers/run-release.ts';
import { type SwarmCluster, startSwarmCluster } from '../helpers/swarm-cluster.ts';
import { buildRelease, waitFor } from './swarm.ts';

/**
 * The reference API and worker on a real three-node Swarm, three replicas each (one per node, on
 * each node's host network), images of two releases that `release build --push` put in the
 * registry the nodes pull from.
 */
export interface ClusterDeployment {
  cluster: SwarmCluster;
  repo: GitRepo;
  namespace: string;
  digests: Record<string, { api: string; worker: string }>;
  /** The API's URL on each node's address. */
  nodeUrls: string[];
  stop(): Promise<void>;
}

export const API = 'app_api';
export const WORKER = 'app_worker';
export const API_PORT = 18080;

export async function startClusterDeployment(): Promise<ClusterDeployment> {
  const cluster = await startSwarmCluster();
  const repo = GitRepo.create('cluster-');
  const stop = async () => {
    await cluster.stop();
    repo.remove();
  };
  try {
    const namespace = `${cluster.registry.host}/acme`;
    writeReferenceConfig(repo.dir, { registry: namespace, insecureRegistries: [cluster.registry.host] });
    const digests: ClusterDeployment['digests'] = {};
    for (const tag of ['v1.0.0', 'v2.0.0']) digests[tag] = await buildRelease(repo, namespace, tag);
    const deployment = {
      cluster,
      repo,
      namespace,
      digests,
      nodeUrls: cluster.nodes.map((n) => `http://${n.addr}:${API_PORT}`),
      stop,
    };
    await createServices(deployment);
    return deployment;
  } catch (error) {
    await stop();
    throw error;
  }
}

export function image(d: ClusterDeployment, artifact: 'api' | 'worker', tag: string): string {
  return `${d.namespace}/service-${artifact}:${tag}@${d.digests[tag]![artifact]}`;
}

async function createServices(d: ClusterDeployment): Promise<void> {
  const docker = d.cluster.manager.docker;
  const host = (await docker.listNetworks({ filters: { name: ['host'] } })).find((n) => n.Name === 'host')!;
  const common = {
    Mode: { Replicated: { Replicas: 3 } },
    // A pause between tasks (kept by `release upgrade`, which changes only the image, the order and
    // the failure action) holds every upgrade mid-way for seconds, so a test that loses a node
    // mid-upgrade sees the update under way however slow its look at the tasks is.
    UpdateConfig: {
      Parallelism: 1,
      Delay: 2_000_000_000,
      Order: 'stop-first',
      FailureAction: 'pause',
      Monitor: 1_000_000_000,
    },
  };
  const placement = { MaxReplicas: 1 };
  await docker.createService({
    Name: API,
    TaskTemplate: {
      ContainerSpec: {
        Image: image(d, 'api', 'v1.0.0'),
        Env: [`PORT=${API_PORT}`, 'HOST=0.0.0.0'],
        StopGracePeriod: 2_000_000_000,
      },
      Networks: [{ Target: host.Id }],
      Placement: placement,
      RestartPolicy: { Condition: 'on-failure', Delay: 500_000_000 },
    },
    ...common,
  } as Docker.CreateServiceOptions);
  await docker.createService({
    Name: WORKER,
    TaskTemplate: {
      ContainerSpec: {
        Image: image(d, 'worker', 'v1.0.0'),
        Env: ['WORKER_HEALTH_HOST=127.0.0.1', 'WORKER_HEALTH_PORT=0'],
        StopGracePeriod: 2_000_000_000,
      },
      Networks: [{ Target: host.Id }],
      Placement: placement,
      RestartPolicy: { Condition: 'on-failure', Delay: 500_000_000 },
    },
    ...common,
  } as Docker.CreateServiceOptions);
  await waitFor(
    async () => ((await versionsByNode(d)).every((v) => v === 'v1.0.0') ? true : undefined),
    180_000,
  );
}

/** What `/api/version` says on each node's address (`down` when it does not answer). */
export async function versionsByNode(d: ClusterDeployment): Promise<string[]> {
  return Promise.all(
    d.nodeUrls.map(async (url) => {
      try {
        const res = await fetch(`${url}/api/version`, { signal: AbortSignal.timeout(1_500) });
        return ((await res.json()) as { version: string }).version;
      } catch {
        return 'down';
      }
    }),
  );
}

/** `release upgrade` of the cluster's API and worker, through the manager. */
export function upgrade(d: ClusterDeployment, args: string[], timeoutMs = 240_000): Promise<RunResult> {
  return runRelease(
    [
      'upgrade',
      ...['--url', d.nodeUrls[0]!, '--docker-host', d.cluster.manager.host],
      ...['--service', `api=${API}`, '--service', `worker=${WORKER}`],
      ...['--monitor', '1000', '--rollback-timeout', '90000', '--json'],
      ...args,
    ],
    { cwd: d.repo.dir, timeoutMs },
  );
}

export function verify(d: ClusterDeployment, args: string[]): Promise<RunResult> {
  return runRelease(
    [
      ...['verify', '--url', d.nodeUrls[0]!, '--docker-host', d.cluster.manager.host, '--url-per-node'],
      ...['--no-cli', '--json', ...args],
    ],
    { cwd: d.repo.dir },
  );
}

/** One task of the stack, as the manager lists it, with its service's and node's names. */
interface StackTask {
  service: string;
  slot: number | undefined;
  /** The node's hostname, `-` when it has none (a task not yet placed). */
  node: string;
  nodeState: string;
  /** The image's tag, digest dropped. */
  tag: string;
  desired: string;
  state: string;
  note: string;
  updatedAt: string;
}

/** The stack's services (with Swarm's update status) and tasks, read once from the manager. */
async function readStack(
  d: ClusterDeployment,
  filters: Record<string, string[]> = {},
): Promise<{ updates: string[]; tasks: StackTask[] }> {
  const docker = d.cluster.manager.docker;
  const nodes = new Map(
    (
      (await docker.listNodes()) as {
        ID: string;
        Description: { Hostname: string };
        Status: { State: string };
      }[]
    ).map((n) => [n.ID, n]),
  );
  const listed = (await docker.listServices()) as {
    ID: string;
    Spec: { Name: string };
    UpdateStatus?: { State?: string; Message?: string };
  }[];
  const services = new Map(listed.map((s) => [s.ID, s.Spec.Name]));
  const raw = (await docker.listTasks({ filters })) as {
    ServiceID: string;
    Slot?: number;
    NodeID?: string;
    DesiredState: string;
    UpdatedAt: string;
    Spec: { ContainerSpec: { Image: string } };
    Status: { State: string; Err?: string; Message?: string };
  }[];
  return {
    updates: listed.map(
      (s) => `${s.Spec.Name}: update ${s.UpdateStatus?.State ?? 'none'} ${s.UpdateStatus?.Message ?? ''}`,
    ),
    tasks: raw.map((t) => {
      const node = nodes.get(t.NodeID ?? '');
      return {
        service: services.get(t.ServiceID) ?? t.ServiceID,
        slot: t.Slot,
        node: node?.Description.Hostname ?? '-',
        nodeState: node?.Status.State ?? '-',
        tag: t.Spec.ContainerSpec.Image.replace(/@.*/, '').replace(/.*:/, ''),
        desired: t.DesiredState,
        state: t.Status.State,
        note: t.Status.Err ?? t.Status.Message ?? '',
        updatedAt: t.UpdatedAt,
      };
    }),
  };
}

/** Every task Swarm wants running, as `<service>@<node>:<image tag>/<state>`. */
export async function taskView(d: ClusterDeployment): Promise<string[]> {
  const { tasks } = await readStack(d, { 'desired-state': ['running'] });
  return tasks.map((t) => `${t.service}@${t.node}:${t.tag}/${t.state}`).sort();
}

/**
 * What a failed test needs to read: each service's update status, every task of the stack (shut
 * down ones too) with its slot, node, tag, desired and actual state and error, then the end of
 * each node's dockerd log (its warnings and errors).
 */
export async function clusterReport(d: ClusterDeployment): Promise<string> {
  try {
    const { updates, tasks } = await readStack(d);
    const lines = tasks
      .map(
        (t) =>
          `${t.service}.${t.slot} ${t.updatedAt} ${t.node}(${t.nodeState}) ${t.tag} desired=${t.desired} state=${t.state} ${t.note}`,
      )
      .sort();
    const logs = d.cluster.nodes.map(
      (n) =>
        `--- ${n.name} dockerd log (end)\n${d.cluster
          .nodeLog(n.index)
          .split('\n')
          .filter((l) => /level=(error|warn)/.test(l))
          .slice(-25)
          .join('\n')}`,
    );
    return `\n--- services\n${updates.join('\n')}\n--- tasks\n${lines.join('\n')}\n${logs.join('\n')}`;
  } catch (error) {
    return `\n(no cluster report: ${(error as Error).message})`;
  }
}
