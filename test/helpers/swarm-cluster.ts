import { execFileSync, spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import Docker from 'dockerode';
import { processAlive } from '../../src/processes/process-alive.ts';
import { type LocalRegistry, startLocalRegistry } from '../../src/registry/local-registry.ts';
import { unmountUnder } from './dockerd.ts';

/**
 * A real three-node Docker Swarm on this machine, as `shared/rigs/swarm-netns.sh` builds it: one
 * network namespace per node joined by a private bridge (no default route: nothing leaves the
 * machine), one dockerd per namespace with its own roots and socket, node1 the manager, a
 * heartbeat of 1 s (a killed node shows `Down` in about 2 s), and a real docker-registry on the
 * bridge address that every node pulls from. Needs root and `ip netns`; says so at once otherwise.
 *
 * The host reaches every node's address (it owns the bridge's), so tests probe `http://<addr>:<port>`
 * of each node directly. Services must use the host network with at most one replica per node:
 * this kernel has no IPVS (no routing mesh, no VIP).
 */
export interface ClusterNode {
  index: number;
  /** Its hostname and Swarm node name: `node1`... */
  name: string;
  /** Its address on the bridge. */
  addr: string;
  /** `unix://<socket>` of its dockerd, reachable from the host. */
  host: string;
  docker: Docker;
}

export interface SwarmCluster {
  nodes: ClusterNode[];
  manager: ClusterNode;
  /** On the bridge address, so the nodes reach it: `10.250.N.1:<port>`. */
  registry: LocalRegistry;
  /** SIGKILL a node's dockerd, as a lost machine: its containers keep running. */
  killNode(index: number): void;
  /** Start a killed node's dockerd again (same data); resolves when it answers. */
  startNode(index: number): Promise<void>;
  nodeLog(index: number): string;
  /** Tear everything down, orphaned containers of a killed dockerd included. Idempotent. */
  stop(): Promise<void>;
}

const NODE_SCRIPT = fileURLToPath(new URL('./swarm-node.sh', import.meta.url));
const NODES = [1, 2, 3];

/** Why this machine cannot run the rig, or undefined when it can. */
export function clusterUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'the three-node Swarm rig needs root (network namespaces, mounts)';
  for (const tool of ['ip', 'dockerd', 'unshare', 'docker-registry']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `the three-node Swarm rig needs ${tool} on PATH`;
    }
  }
  try {
    execFileSync('ip', ['netns', 'list'], { stdio: 'ignore' });
  } catch (error) {
    return `ip netns does not work here: ${(error as Error).message}`;
  }
  return undefined;
}

export async function startSwarmCluster(): Promise<SwarmCluster> {
  const unavailable = clusterUnavailable();
  if (unavailable) throw new Error(unavailable);
  const id = randomBytes(2).toString('hex');
  // A subnet of its own, so a leftover of another run (or the shell recipe's 10.250.0/24) never clashes.
  const subnet = `10.250.${randomInt(1, 255)}`;
  const bridge = `srb${id}`;
  const dir = mkdtempSync('/tmp/sr-swarm-');
  const ns = (i: number) => `srn${id}${i}`;
  const nodeDir = (i: number) => join(dir, `n${i}`);
  let registry: LocalRegistry | undefined;
  let stopped = false;

  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await stopNodes(dir, NODES.map(nodeDir));
    await registry?.stop().catch(() => undefined);
    for (const i of NODES) {
      try {
        ip('netns', 'del', ns(i));
      } catch {
        // Not created.
      }
      removeCgroups(`/swarm-${id}-n${i}`);
    }
    try {
      ip('link', 'del', bridge);
    } catch {
      // Not created.
    }
    unmountUnder(dir);
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };

  const nodes: ClusterNode[] = NODES.map((i) => {
    const socket = join(nodeDir(i), 'docker.sock');
    return {
      index: i,
      name: `node${i}`,
      addr: `${subnet}.1${i}`,
      host: `unix://${socket}`,
      docker: new Docker({ socketPath: socket }),
    };
  });
  const startNode = async (i: number) => {
    const d = nodeDir(i);
    // A killed dockerd leaves its pid file and its containerd's, and a restarted dockerd refuses
    // to start (its own) or adopts the old containerd and times out waiting on it (containerd's)
    // while that pid still exists: a zombie does until this machine's PID 1 reaps it, which it
    // does only now and then.
    await clearStalePidfile(join(d, 'dockerd.pid'), d);
    await clearStalePidfile(join(d, 'x', 'containerd', 'containerd.pid'), d);
    const log = openSync(join(d, 'dockerd.log'), 'a');
    // `setsid --wait` stays dockerd's parent, so its exit tells a start that failed at once from
    // one still under way.
    const child = spawn(
      'ip',
      [
        ...['netns', 'exec', ns(i), 'unshare', '--uts', 'setsid', '--wait', NODE_SCRIPT, `node${i}`],
        ...['--config-file', join(dir, 'daemon.json'), '--data-root', join(d, 'data')],
        ...['--exec-root', join(d, 'x'), '--pidfile', join(d, 'dockerd.pid'), '-H', nodes[i - 1]!.host],
        ...['--storage-driver', 'overlay2', '--iptables=false', '--ip6tables=false', '--bridge=none'],
        ...['--cgroup-parent', `/swarm-${id}-n${i}`, '--insecure-registry', registry!.host],
      ],
      {
        stdio: ['ignore', log, log],
        detached: true,
        env: { ...process.env, DOCKER_SERVICE_PREFER_OFFLINE_IMAGE: '0' },
      },
    );
    child.unref();
    let exited: number | null | undefined;
    child.once('exit', (code, signal) => {
      exited = code ?? (signal ? -1 : null);
    });
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        await nodes[i - 1]!.docker.ping();
        return;
      } catch {
        if (exited !== undefined)
          throw new Error(
            `node${i}'s dockerd exited (${exited}) before it answered:\n${nodeLog(i).slice(-3000)}`,
          );
        if (Date.now() > deadline)
          throw new Error(`node${i}'s dockerd did not answer within 60 s:\n${nodeLog(i).slice(-3000)}`);
        await sleep(100);
      }
    }
  };
  const nodeLog = (i: number) => {
    try {
      return readFileSync(join(nodeDir(i), 'dockerd.log'), 'utf8');
    } catch {
      return '';
    }
  };

  try {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `${subnet}.1/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
    for (const i of NODES) {
      const veth = `srv${id}${i}`;
      ip('netns', 'add', ns(i));
      ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns(i));
      ip('link', 'set', veth, 'master', bridge, 'up');
      ip('-n', ns(i), 'addr', 'add', `${subnet}.1${i}/24`, 'dev', 'eth0');
      ip('-n', ns(i), 'link', 'set', 'eth0', 'up');
      ip('-n', ns(i), 'link', 'set', 'lo', 'up');
      execFileSync('mkdir', ['-p', nodeDir(i)]);
    }
    writeFileSync(join(dir, 'daemon.json'), '{}\n');
    registry = await startLocalRegistry({ dir: join(dir, 'registry'), address: `${subnet}.1` });
    await Promise.all(NODES.map(startNode));
    const [manager, ...workers] = nodes as [ClusterNode, ...ClusterNode[]];
    await manager.docker.swarmInit({
      ListenAddr: `${manager.addr}:2377`,
      AdvertiseAddr: manager.addr,
      DataPathAddr: manager.addr,
      Spec: { Dispatcher: { HeartbeatPeriod: 1_000_000_000 } },
    });
    const token = ((await manager.docker.swarmInspect()) as { JoinTokens: { Worker: string } }).JoinTokens
      .Worker;
    await Promise.all(
      workers.map((node) =>
        node.docker.swarmJoin({
          RemoteAddrs: [`${manager.addr}:2377`],
          JoinToken: token,
          ListenAddr: `${node.addr}:2377`,
          AdvertiseAddr: node.addr,
        }),
      ),
    );
    return {
      nodes,
      manager,
      registry,
      killNode(i) {
        const pid = Number(readFileSync(join(nodeDir(i), 'dockerd.pid'), 'utf8'));
        process.kill(pid, 'SIGKILL');
      },
      startNode,
      nodeLog,
      stop,
    };
  } catch (error) {
    const logs = NODES.map((i) => `node${i}: ${nodeLog(i).slice(-1500)}`).join('\n');
    await stop();
    throw new Error(`the three-node Swarm did not start: ${(error as Error).message}\n${logs}`);
  }
}

/**
 * Stop every node's dockerd (TERM, then KILL), then what a dockerd killed with SIGKILL leaves
 * running: its containerd shims and their containers, found by their command lines naming the
 * node's exec root, and the shims' sockets under /run/containerd/s.
 */
async function stopNodes(dir: string, nodeDirs: string[]): Promise<void> {
  const pids = nodeDirs
    .map((d) => Number(readOr(join(d, 'dockerd.pid'))))
    .filter((pid) => pid > 0 && processAlive(pid));
  for (const pid of pids) process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 100 && pids.some((pid) => processAlive(pid)); i++) await sleep(200);
  for (const pid of pids.filter((pid) => processAlive(pid))) process.kill(pid, 'SIGKILL');
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = readOr(`/proc/${entry}/cmdline`).split('\0');
    if (!cmdline[0]?.endsWith('containerd-shim-runc-v2') || !cmdline.some((a) => a.startsWith(dir))) continue;
    for (const child of readOr(`/proc/${entry}/task/${entry}/children`).split(' ').filter(Boolean))
      killQuietly(Number(child));
    killQuietly(Number(entry));
    const address = cmdline.indexOf('-address');
    const namespace = cmdline.indexOf('-namespace');
    const idIndex = cmdline.indexOf('-id');
    if (address > 0 && namespace > 0 && idIndex > 0) {
      const { createHash } = await import('node:crypto');
      const key = `${cmdline[address + 1]}/${cmdline[namespace + 1]}/${cmdline[idIndex + 1]}`;
      rmSync(`/run/containerd/s/${createHash('sha256').update(key).digest('hex')}`, { force: true });
    }
  }
  await sleep(500);
}

/**
 * Remove a pid file whose process is gone: no such pid, a zombie (its cmdline is empty), or a pid
 * reused by a process that is not the node's (its cmdline does not name the node's folder). Waits
 * while the node's process still runs (SIGKILL is not instant for a process in the kernel).
 */
async function clearStalePidfile(pidfile: string, nodeDir: string): Promise<void> {
  const pid = Number(readOr(pidfile));
  if (!(pid > 0)) return;
  for (let i = 0; readOr(`/proc/${pid}/cmdline`).includes(nodeDir); i++) {
    if (i === 150) throw new Error(`pid ${pid} of ${pidfile} still runs after 30 s`);
    await sleep(200);
  }
  rmSync(pidfile, { force: true });
}

function removeCgroups(parent: string): void {
  for (const root of ['/sys/fs/cgroup', ...safeList('/sys/fs/cgroup').map((c) => `/sys/fs/cgroup/${c}`)]) {
    const path = join(root, parent);
    if (existsSync(path)) {
      try {
        execFileSync('find', [path, '-depth', '-type', 'd', '-exec', 'rmdir', '{}', '+'], {
          stdio: 'ignore',
        });
      } catch {
        // Busy or already gone: nothing of ours is left running by now.
      }
    }
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}
