import { listNodes, listTasks } from '../../../deployment-engines/swarm/swarm.ts';
import type { Step, StepIO } from '../../../pipeline/step.ts';
import { failureOf } from '../../../upgrade/deployment-types.ts';
import type { PlannedService } from '../../../upgrade/swarm/swarm-plan.ts';
import { servicesToRestore } from '../../../upgrade/swarm/swarm-plan.ts';
import { previousSpecAgain, rollbackSpec } from '../../../upgrade/swarm/swarm-rollback-spec.ts';
import { imageOfSpec, type RunningService } from '../../../upgrade/swarm/swarm-types.ts';
import type { RestoreResult } from '../../../upgrade/upgrade-outcome.ts';
import { record } from '../upgrade-context.ts';
import type { SwarmUpgradeContext } from './swarm-context.ts';
import { waitSwarmConverged } from './swarm-wait.ts';
import { waitJobRun } from './wait-job-run.ts';
import { writeAtCurrentIndex } from './write-at-current-index.ts';

/**
 * Every service this run touched goes back to the spec it had before, whole (not only the image),
 * at once, each at its current version index; then each must converge on it. A service that
 * cannot be put back is reported with its state; the others are still put back.
 */
export const rollbackSwarmStep: Step<SwarmUpgradeContext> = {
  title: 'Roll back every touched service',
  writes: true,
  skip: (ctx) => (ctx.failure ? false : 'nothing failed'),
  async run(ctx, io) {
    const deadline = Date.now() + ctx.rollbackTimeoutMs;
    const restore = servicesToRestore(ctx.plan!, ctx.touched);
    const nodeLost = (await listNodes(ctx.docker).catch(() => [])).some((n) => n.state !== 'ready');
    if (nodeLost) record(ctx, 'a node is not ready: the rollback replaces every task at once');
    ctx.restores = await Promise.all(
      restore.map((planned) => rollBack(ctx, planned, deadline, io, nodeLost)),
    );
    const back = ctx.restores.filter((r) => r.status === 'restored').length;
    io.progress(`${back} of ${ctx.restores.length} service(s) back on their previous spec`);
  },
};

/**
 * One service: the previous spec with an update config that goes on past a failed task (see
 * `rollbackSpec` for why), the wait for convergence, then the previous spec exactly.
 */
async function rollBack(
  ctx: SwarmUpgradeContext,
  planned: PlannedService,
  deadline: number,
  io: StepIO,
  nodeLost: boolean,
): Promise<RestoreResult> {
  const previous = ctx.running!.find((s) => s.name === planned.name)!;
  const failed = (reason: string): RestoreResult => {
    record(ctx, `${planned.name}: rollback failed: ${reason}`);
    return { role: planned.role, name: planned.name, status: 'failed', detail: reason };
  };
  if (planned.oneShot) return rollBackJob(ctx, planned, previous, deadline, io);
  let before: Set<string>;
  try {
    before = new Set((await listTasks(ctx.docker, previous.id)).map((t) => t.id));
    await writeAtCurrentIndex(ctx.docker, previous.id, () =>
      rollbackSpec(previous.spec, planned.order, { nodeLost }),
    );
  } catch (error) {
    return failed(failureOf(error).reason);
  }
  record(ctx, `${planned.name}: previous spec put back (${previous.image})`);
  let result: RestoreResult;
  try {
    await waitSwarmConverged({
      docker: ctx.docker,
      serviceId: previous.id,
      name: planned.name,
      role: planned.role,
      spec: previous.spec,
      before,
      stableMs: ctx.monitorMs,
      deadline,
      cancelled: () => false,
      tolerateFailedTasks: true,
      progress: io.progress,
      record: (text) => record(ctx, text),
    });
    record(ctx, `${planned.name}: converged on ${previous.image}`);
    result = {
      role: planned.role,
      name: planned.name,
      status: 'restored',
      detail: `runs ${previous.image} again`,
    };
  } catch (error) {
    result = failed(failureOf(error).reason);
  }
  // Converged or not, the service must end with exactly the spec it had before the upgrade: its
  // own update config too. Converged, only that config changes and Swarm restarts no task for it.
  // Not converged (the deadline), Swarm finishes the rollback under the user's own config: this
  // command stops watching, Swarm goes on.
  try {
    const seen: { found: ReturnType<typeof previousSpecAgain> } = { found: 'done' };
    await writeAtCurrentIndex(ctx.docker, previous.id, (now) => {
      seen.found = previousSpecAgain(now.spec, previous.spec);
      return seen.found === 'write' ? previous.spec : undefined;
    });
    if (seen.found === 'write') record(ctx, `${planned.name}: its own update config put back`);
    if (seen.found === 'changed') {
      const why = 'its spec was changed by someone else during the rollback, and is left as they made it';
      return result.status === 'failed' ? { ...result, detail: `${result.detail}; ${why}` } : failed(why);
    }
  } catch (error) {
    const why = `its own update config could not be put back: ${failureOf(error).reason}`;
    return result.status === 'failed' ? { ...result, detail: `${result.detail}; ${why}` } : failed(why);
  }
  return result;
}

/**
 * A job: its previous spec exactly (a job takes no update config), which starts a run of the
 * previous image, and the wait for that run to complete: what ran before is then also what ran
 * last, and verify reads the job in step on the old tag.
 */
async function rollBackJob(
  ctx: SwarmUpgradeContext,
  planned: PlannedService,
  previous: RunningService,
  deadline: number,
  io: StepIO,
): Promise<RestoreResult> {
  try {
    const before = new Set((await listTasks(ctx.docker, previous.id)).map((t) => t.id));
    await writeAtCurrentIndex(ctx.docker, previous.id, () => previous.spec);
    record(ctx, `${planned.name}: previous spec put back (${previous.image}), its job runs again`);
    await waitJobRun({
      docker: ctx.docker,
      serviceId: previous.id,
      name: planned.name,
      role: planned.role,
      image: imageOfSpec(previous.spec),
      before,
      deadline,
      progress: io.progress,
    });
    record(ctx, `${planned.name}: its run on ${previous.image} completed`);
    return {
      role: planned.role,
      name: planned.name,
      status: 'restored',
      detail: `ran ${previous.image} again`,
    };
  } catch (error) {
    const reason = failureOf(error).reason;
    record(ctx, `${planned.name}: rollback failed: ${reason}`);
    return { role: planned.role, name: planned.name, status: 'failed', detail: reason };
  }
}
