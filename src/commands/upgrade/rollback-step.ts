import { inspectService, listTasks, updateService } from '../../engine/docker/swarm.ts';
import type { Step } from '../../pipeline/step.ts';
import { type RestoreResult, servicesToRestore } from '../../upgrade/upgrade-outcome.ts';
import { failureOf, waitConverged } from './converge.ts';
import { record, type UpgradeContext } from './upgrade-context.ts';

/**
 * Every service this run touched goes back to the spec it had before, whole (not only the image),
 * at once, each at its current version index; then each must converge on it. A service that
 * cannot be put back is reported with its state; the others are still put back.
 */
export const rollbackStep: Step<UpgradeContext> = {
  title: 'Roll back every touched service',
  writes: true,
  skip: (ctx) => (ctx.failure ? false : 'nothing failed'),
  async run(ctx, io) {
    const deadline = Date.now() + ctx.rollbackTimeoutMs;
    const restore = servicesToRestore(ctx.plan!, ctx.touched);
    ctx.restores = await Promise.all(
      restore.map(async (planned): Promise<RestoreResult> => {
        const previous = ctx.running!.find((s) => s.role === planned.role)!;
        try {
          const now = await inspectService(ctx.docker, previous.id);
          const before = new Set((await listTasks(ctx.docker, previous.id)).map((t) => t.id));
          await updateService(ctx.docker, previous.id, now.versionIndex, previous.spec);
          record(ctx, `${planned.name}: previous spec put back (${previous.image})`);
          await waitConverged({
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
          });
          record(ctx, `${planned.name}: converged on ${previous.image}`);
          return {
            role: planned.role,
            name: planned.name,
            status: 'restored',
            detail: `runs ${previous.image} again`,
          };
        } catch (error) {
          const failure = failureOf(error);
          record(ctx, `${planned.name}: rollback failed: ${failure.reason}`);
          return { role: planned.role, name: planned.name, status: 'failed', detail: failure.reason };
        }
      }),
    );
    const back = ctx.restores.filter((r) => r.status === 'restored').length;
    io.progress(`${back} of ${ctx.restores.length} service(s) back on their previous spec`);
  },
};
