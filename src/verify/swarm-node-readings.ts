import { splitImageRef } from '../registry/image-ref.ts';
import { printable } from '../text/printable.ts';
import type { ArtifactName, ProbeResult } from './types.ts';

/** A Swarm task of a service, as verify needs it (Engine API `Task`, reduced). */
export interface SwarmTaskReading {
  id: string;
  nodeId: string | undefined;
  desired: string;
  state: string;
  image: string;
  /** `SERVICE_VERSION` of the task's spec, if it sets one. */
  env: string | undefined;
  /** A replicated service's replica number: the tasks that replaced one another share it. */
  slot?: number;
  /** The task object's version index: the highest is the newest change to it. */
  index?: number;
}

/** A node as the manager sees it. */
export interface SwarmNodeReading {
  id: string;
  name: string;
  addr: string;
  state: string;
}

/**
 * What the manager's view of one service hides: the readings a verify that only read the
 * service's spec would miss. A node that is not `ready` (lost, disconnected) may still run, and
 * serve, what it last ran: each of its tasks becomes a reading of version `unknown`, naming the
 * node and what it last ran, so the deployment is never "in step" while it is out. A task still
 * running although Swarm wants it gone (a node that came back with an old container) is a reading
 * of the version it runs, so it shows as drift until Swarm has replaced it.
 */
export function swarmNodeReadings(input: {
  name: ArtifactName;
  service: string;
  tasks: SwarmTaskReading[];
  nodes: SwarmNodeReading[];
  versionOf: (task: SwarmTaskReading) => { version: string; from: string };
}): ProbeResult[] {
  const nodes = new Map(input.nodes.map((n) => [n.id, n]));
  const readings: ProbeResult[] = [];
  const reading = (task: SwarmTaskReading, node: SwarmNodeReading, version: string, detail: string) => ({
    name: input.name,
    source: `service ${input.service} task ${task.id.slice(0, 12)} on ${node.name}${node.addr ? ` (${node.addr})` : ''}`,
    version,
    detail,
    image: printable(task.image, { max: 200 }),
    running: true,
    ...(splitImageRef(task.image).digest ? { digest: splitImageRef(task.image).digest! } : {}),
  });
  for (const task of input.tasks) {
    const node = task.nodeId ? nodes.get(task.nodeId) : undefined;
    if (!node || !isCurrent(task)) continue;
    const { version, from } = input.versionOf(task);
    if (node.state !== 'ready') {
      readings.push(
        reading(
          task,
          node,
          'unknown',
          `${node.name} is ${node.state}: what it runs is unknown; it last ran ${version} (${from}, task ${task.state})`,
        ),
      );
    } else if (task.desired !== 'running' && task.state === 'running') {
      readings.push(
        reading(
          task,
          node,
          version,
          `still running on ${node.name} although Swarm wants it ${task.desired} (${from})`,
        ),
      );
    }
  }
  for (const { task, node } of unservedSlots(input.tasks, nodes)) {
    const { version, from } = input.versionOf(task);
    readings.push(
      reading(
        task,
        node,
        'unknown',
        `${node.name} is ${node.state}: what it runs is unknown; it last ran ${version} (${from}, task ${task.state}; its replacement is not running on any node)`,
      ),
    );
  }
  return readings;
}

/** Swarm wants it running, or it still runs. */
function isCurrent(task: SwarmTaskReading): boolean {
  return task.desired === 'running' || task.state === 'running';
}

/**
 * The manager may have given up a lost node's task of a replica (an update shut it down, or the
 * node's loss did) while its replacement cannot be placed (one replica per node, no node left):
 * the manager then lists nothing current on the lost node, yet the node is the last one that ran
 * the replica, and may still be serving it. Such a replica, with no task running on a ready node,
 * is read from its newest task on the lost node. A lost node with a current task is read from
 * that task already; a replica another node now runs is no longer the lost node's.
 */
function unservedSlots(
  tasks: SwarmTaskReading[],
  nodes: Map<string, SwarmNodeReading>,
): { task: SwarmTaskReading; node: SwarmNodeReading }[] {
  const nodeOf = (t: SwarmTaskReading) => (t.nodeId ? nodes.get(t.nodeId) : undefined);
  const bySlot = new Map<number, SwarmTaskReading[]>();
  for (const t of tasks) if (t.slot !== undefined) bySlot.set(t.slot, [...(bySlot.get(t.slot) ?? []), t]);
  const found: { task: SwarmTaskReading; node: SwarmNodeReading }[] = [];
  for (const slotTasks of bySlot.values()) {
    const served = slotTasks.some((t) => t.state === 'running' && nodeOf(t)?.state === 'ready');
    const placed = slotTasks.filter((t) => nodeOf(t) !== undefined);
    const newest = placed.reduce<SwarmTaskReading | undefined>(
      (a, t) => (a === undefined || (t.index ?? 0) > (a.index ?? 0) ? t : a),
      undefined,
    );
    const node = newest && nodeOf(newest);
    if (served || !newest || !node || node.state === 'ready') continue;
    // Already read above: a current task on a lost node.
    if (slotTasks.some((t) => isCurrent(t) && nodeOf(t) === node)) continue;
    found.push({ task: newest, node });
  }
  return found;
}
