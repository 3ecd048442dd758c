import type Docker from 'dockerode';
import { inspectService, listTasks, readHealth } from '../../engine/docker/swarm.ts';
import { judgeConvergence } from '../../upgrade/convergence.ts';
import type { ServiceSpec } from '../../upgrade/swarm-types.ts';
import type { UpgradeFailure } from '../../upgrade/upgrade-outcome.ts';

/** How often the engine is asked while waiting. */
export const POLL_MS = 250;

/** Thrown inside the apply and rollback steps to stop at the first thing that went wrong. */
export class UpgradeStop extends Error {
  constructor(readonly failure: UpgradeFailure) {
    super(failure.reason);
  }
}

export interface ConvergeRequest {
  docker: Docker;
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
}

/**
 * Poll a service until the pure judge says converged (resolves) or failed (throws UpgradeStop),
 * or the deadline passes (throws UpgradeStop of kind deadline, with what it was waiting for).
 * "Running since" is measured on this machine's clock from the first poll that saw a task
 * running, so a remote engine's clock does not matter; tasks already running before count as
 * stable.
 */
export async function waitConverged(request: ConvergeRequest): Promise<void> {
  const image = request.spec.TaskTemplate?.ContainerSpec?.Image ?? '';
  const replicas = request.spec.Mode?.Replicated ? (request.spec.Mode.Replicated.Replicas ?? 1) : undefined;
  const firstSeen = new Map<string, number>();
  let last = 'no answer from the engine yet';
  for (;;) {
    if (request.cancelled()) return;
    const [inspected, tasks] = await Promise.all([
      inspectService(request.docker, request.serviceId),
      listTasks(request.docker, request.serviceId),
    ]);
    const now = Date.now();
    for (const t of tasks) {
      if (t.state === 'running' && !firstSeen.has(t.id))
        firstSeen.set(t.id, request.before.has(t.id) ? 0 : now);
    }
    const verdict = judgeConvergence({
      tasks: tasks.map((t) => ({ ...t, since: firstSeen.get(t.id) ?? now })),
      image,
      before: request.before,
      replicas,
      stableMs: request.stableMs,
      now,
      ...(request.tolerateFailedTasks ? { tolerateFailedTasks: true } : {}),
      ...(inspected.updateState ? { updateState: inspected.updateState } : {}),
      ...(inspected.updateMessage ? { updateMessage: inspected.updateMessage } : {}),
    });
    if (verdict.status === 'converged') return;
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

/** Turn anything thrown while applying into the failure the report names. */
export function failureOf(error: unknown): UpgradeFailure {
  if (error instanceof UpgradeStop) return error.failure;
  return { kind: 'engine', reason: (error as Error).message ?? String(error) };
}
