import {
  inspectService,
  listNodes,
  listTasks,
  readHealth,
  updateService,
} from '../../../deployment-engines/swarm/swarm.ts';
import type { DockerClient } from '../../../docker-client/connect.ts';
import { POLL_MS, type UpgradeFailure, UpgradeStop } from '../../../upgrade/deployment-types.ts';
import { judgeSwarmConvergence } from '../../../upgrade/swarm/swarm-convergence.ts';
import { forcedPass } from '../../../upgrade/swarm/swarm-plan.ts';
import type { ServiceSpec } from '../../../upgrade/swarm/swarm-types.ts';

export interface SwarmConvergeRequest {
  docker: DockerClient;
  serviceId: string;
  name: string;
  role: UpgradeFailure['role'];
  /** The spec just applied: its image and replica count are what to converge on. */
  spec: ServiceSpec;
  /** Task IDs listed just before the update. */
  before: ReadonlySet<string>;
  stableMs: number;
  /** `Date.now()` value after which waiting stops. */
  deadline: number;
  /** Set by a sibling that failed: stop waiting, nothing more to learn here. */
  cancelled: () => boolean;
  /** Rolling back: wait through Swarm's restarts of a failed task until the deadline. */
  tolerateFailedTasks?: boolean;
  progress: (text: string) => void;
  /** A line for the upgrade's timeline (a resumed update, a rollback that left tasks unplaced). */
  record?: (text: string) => void;
}

/** How often an update that a lost node stalled is resumed or forced on, at most. */
const MAX_RESUMES = 5;

/**
 * Poll a service until the pure judge says converged (resolves) or failed (throws UpgradeStop),
 * or the deadline passes (throws UpgradeStop of kind deadline, with what it was waiting for).
 * "Running since" is measured on this machine's clock from the first poll that saw a task
 * running, so a remote engine's clock does not matter; tasks already running before count as
 * stable.
 */
export async function waitSwarmConverged(request: SwarmConvergeRequest): Promise<void> {
  const image = request.spec.TaskTemplate?.ContainerSpec?.Image ?? '';
  const replicas = request.spec.Mode?.Replicated ? (request.spec.Mode.Replicated.Replicas ?? 1) : undefined;
  const firstSeen = new Map<string, number>();
  /** The first poll, since this wait's last write, at which Swarm had no update under way. */
  let idleSince: number | undefined;
  const lostNodes = new Set<string>();
  let resumes = 0;
  let last = 'no answer from the engine yet';
  for (;;) {
    if (request.cancelled()) return;
    const [inspected, tasks, nodes] = await Promise.all([
      inspectService(request.docker, request.serviceId),
      listTasks(request.docker, request.serviceId),
      listNodes(request.docker),
    ]);
    const now = Date.now();
    for (const node of nodes) if (node.state !== 'ready') lostNodes.add(node.id);
    for (const t of tasks) {
      if (t.state === 'running' && !firstSeen.has(t.id))
        firstSeen.set(t.id, request.before.has(t.id) ? 0 : now);
    }
    const idle = inspected.updateState === undefined || inspected.updateState === 'completed';
    idleSince = idle ? (idleSince ?? now) : undefined;
    const verdict = judgeSwarmConvergence({
      tasks: tasks.map((t) => ({ ...t, since: firstSeen.get(t.id) ?? now })),
      image,
      before: request.before,
      replicas,
      stableMs: request.stableMs,
      now,
      ...(request.tolerateFailedTasks ? { tolerateFailedTasks: true } : {}),
      ...(nodes.length ? { nodes, lostNodes } : {}),
      ...(inspected.updateState ? { updateState: inspected.updateState } : {}),
      ...(inspected.updateMessage ? { updateMessage: inspected.updateMessage } : {}),
      ...(idleSince !== undefined ? { idleMs: now - idleSince } : {}),
    });
    if (verdict.status === 'converged') {
      if (verdict.degraded) request.record?.(`${request.name}: ${verdict.degraded}`);
      return;
    }
    if (verdict.status === 'waiting' && (verdict.resume || verdict.force) && resumes < MAX_RESUMES) {
      // Writing the spec again, unchanged, is how Swarm resumes a paused update (docker service
      // update does the same); with the force counter moved on, Swarm replaces every task. At the
      // index just read, so nobody else's change is overwritten.
      resumes++;
      request.record?.(`${request.name}: ${verdict.reason}`);
      const spec = verdict.force ? forcedPass(inspected.spec) : inspected.spec;
      await updateService(request.docker, request.serviceId, inspected.versionIndex, spec);
      // A write clears Swarm's update status until its orchestrator acts on it: not idleness.
      idleSince = undefined;
      continue;
    }
    if (verdict.status === 'failed') {
      // A container stopped for failing its health check exits like any other: say which it was.
      const id = verdict.task?.containerId;
      const health = id ? await readHealth(request.docker, id) : undefined;
      const healthNote =
        health && health.status !== 'healthy'
          ? `; health check ${health.status} after ${health.failingStreak} failure(s) (last: ${health.lastOutput})`
          : '';
      throw new UpgradeStop({
        ...(request.role ? { role: request.role } : {}),
        service: request.name,
        kind: 'task',
        reason: `${request.name}: ${verdict.reason}${healthNote}`,
      });
    }
    if (verdict.reason !== last) request.progress(`${request.name}: ${verdict.reason}`);
    last = verdict.reason;
    if (now >= request.deadline) {
      throw new UpgradeStop({
        ...(request.role ? { role: request.role } : {}),
        service: request.name,
        kind: 'deadline',
        reason: `${request.name} did not converge before the deadline: ${last}`,
      });
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(POLL_MS, Math.max(0, request.deadline - now))),
    );
  }
}
