import { type NodeView, nodeIsReady, type TaskView } from './swarm-types.ts';

/** One task as the per-node report shows it. */
export interface NodeTask {
  service: string;
  task: string;
  /** The image reference of the task's spec. */
  image: string;
  desired: string;
  state: string;
  error?: string;
}

/** What one node runs of the deployment's services, as far as the manager knows. */
export interface NodeReport {
  node: string;
  addr: string;
  state: string;
  availability: string;
  /** Tasks Swarm wants running there, or that still run there although Swarm wants them gone. */
  tasks: NodeTask[];
}

/** Where no node could be found for a task: a task Swarm could not place. */
export const UNPLACED = '(not placed)';

/**
 * The cluster seen per node: each node's state and the deployment's tasks on it that matter now
 * (wanted running, or still running). Tasks Swarm could not place are grouped under `UNPLACED`.
 * Pure: the adapter reads nodes and tasks, this arranges them.
 */
export function nodeReport(nodes: NodeView[], tasks: { service: string; task: TaskView }[]): NodeReport[] {
  const current = tasks.filter(({ task }) => task.desired === 'running' || task.state === 'running');
  const byNode = new Map<string, NodeTask[]>();
  for (const { service, task } of current) {
    const key = task.nodeId && nodes.some((n) => n.id === task.nodeId) ? task.nodeId : UNPLACED;
    byNode.set(key, [
      ...(byNode.get(key) ?? []),
      {
        service,
        task: task.id.slice(0, 12),
        image: task.image,
        desired: task.desired,
        state: task.state,
        ...(task.error
          ? { error: task.error }
          : task.message && task.state === 'pending'
            ? { error: task.message }
            : {}),
      },
    ]);
  }
  const reports: NodeReport[] = nodes
    .map((n) => ({
      node: n.name,
      addr: n.addr,
      state: n.state,
      availability: n.availability,
      tasks: sortTasks(byNode.get(n.id) ?? []),
    }))
    .sort((a, b) => a.node.localeCompare(b.node));
  const unplaced = byNode.get(UNPLACED);
  if (unplaced)
    reports.push({
      node: UNPLACED,
      addr: '',
      state: 'pending',
      availability: '-',
      tasks: sortTasks(unplaced),
    });
  return reports;
}

/** Whether the report needs a person's eye: a node not ready, a task not placed, or one still running unwanted. */
export function nodeTrouble(report: NodeReport[]): string[] {
  return report.flatMap((r) => {
    if (r.node === UNPLACED)
      return r.tasks.map((t) => `${t.service} task ${t.task} is not placed${t.error ? `: ${t.error}` : ''}`);
    const lines: string[] = [];
    if (!nodeIsReady({ id: '', name: r.node, addr: r.addr, state: r.state, availability: r.availability })) {
      const last =
        r.tasks.map((t) => `${t.service} ${tagOf(t.image)}`).join(', ') || 'nothing of this deployment';
      lines.push(`${r.node} (${r.addr}) is ${r.state}: what it runs is unknown; it last ran ${last}`);
    }
    for (const t of r.tasks)
      if (t.desired !== 'running' && t.state === 'running')
        lines.push(
          `${r.node} still runs ${t.service} ${tagOf(t.image)} (task ${t.task}), which Swarm wants ${t.desired}`,
        );
    return lines;
  });
}

/** `repo:v1.2.3@sha256:...` -> `v1.2.3` (the digest when there is no tag). */
export function tagOf(image: string): string {
  const [name, digest] = image.split('@');
  const colon = name!.lastIndexOf(':');
  return colon > name!.lastIndexOf('/') ? name!.slice(colon + 1) : (digest?.slice(0, 19) ?? name!);
}

function sortTasks(tasks: NodeTask[]): NodeTask[] {
  return tasks.sort((a, b) => a.service.localeCompare(b.service) || a.task.localeCompare(b.task));
}
