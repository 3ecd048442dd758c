import { splitImageRef } from '../registry/image-ref.ts';
import { printable } from '../shared/printable.ts';
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
  for (const task of input.tasks) {
    const node = task.nodeId ? nodes.get(task.nodeId) : undefined;
    if (!node) continue;
    const current = task.desired === 'running' || task.state === 'running';
    if (!current) continue;
    const { version, from } = input.versionOf(task);
    const where = `${node.name}${node.addr ? ` (${node.addr})` : ''}`;
    const base = {
      name: input.name,
      image: printable(task.image, { max: 200 }),
      running: true,
      ...(splitImageRef(task.image).digest ? { digest: splitImageRef(task.image).digest! } : {}),
    };
    if (node.state !== 'ready') {
      readings.push({
        ...base,
        source: `service ${input.service} task ${task.id.slice(0, 12)} on ${where}`,
        version: 'unknown',
        detail: `${node.name} is ${node.state}: what it runs is unknown; it last ran ${version} (${from}, task ${task.state})`,
      });
    } else if (task.desired !== 'running' && task.state === 'running') {
      readings.push({
        ...base,
        source: `service ${input.service} task ${task.id.slice(0, 12)} on ${where}`,
        version,
        detail: `still running on ${node.name} although Swarm wants it ${task.desired} (${from})`,
      });
    }
  }
  return readings;
}
