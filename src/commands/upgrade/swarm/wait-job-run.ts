import { listTasks } from '../../../deployment-engines/swarm/swarm.ts';
import type { DockerClient } from '../../../docker-client/connect.ts';
import { POLL_MS, type ServiceRole, UpgradeStop } from '../../../upgrade/deployment-types.ts';
import { judgeJobRun } from '../../../upgrade/swarm/job-run.ts';

/**
 * Poll a one-shot service (a replicated job, or restart policy none) until the run its last spec
 * write started has completed (resolves), failed (throws UpgradeStop of kind task), or the
 * deadline passes (kind deadline): what Compose's `service_completed_successfully` waits for.
 */
export async function waitJobRun(request: {
  docker: DockerClient;
  serviceId: string;
  name: string;
  role: ServiceRole;
  /** The image of the run waited for, as written in the spec. */
  image: string;
  /** Task IDs listed just before the write: earlier runs. */
  before: ReadonlySet<string>;
  deadline: number;
  progress: (text: string) => void;
}): Promise<void> {
  let last = 'no answer from the engine yet';
  for (;;) {
    const verdict = judgeJobRun({
      tasks: await listTasks(request.docker, request.serviceId),
      before: request.before,
      image: request.image,
    });
    if (verdict.status === 'completed') return;
    if (verdict.status === 'failed') {
      throw new UpgradeStop({
        role: request.role,
        service: request.name,
        kind: 'task',
        reason: `job ${request.name}: its run did not complete: ${verdict.reason}`,
      });
    }
    if (verdict.reason !== last) request.progress(`${request.name}: ${verdict.reason}`);
    last = verdict.reason;
    if (Date.now() > request.deadline) {
      throw new UpgradeStop({
        role: request.role,
        service: request.name,
        kind: 'deadline',
        reason: `job ${request.name}: its run had not completed by the deadline (${last})`,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
