import { versionReadOrder } from '../../../config/version-variables.ts';
import { listTasks, updateService } from '../../../deployment-engines/swarm/swarm.ts';
import type { Step, StepIO } from '../../../pipeline/step.ts';
import { failureOf } from '../../../upgrade/deployment-types.ts';
import type { PlannedService } from '../../../upgrade/swarm/swarm-plan.ts';
import { nextSpec } from '../../../upgrade/swarm/swarm-plan.ts';
import { record } from '../upgrade-context.ts';
import { reportedApiVersion, waitReportedVersion } from '../wait-reported-version.ts';
import type { SwarmUpgradeContext } from './swarm-context.ts';
import { readTaskVersions } from './swarm-service-readings.ts';
import { waitSwarmConverged } from './swarm-wait.ts';
import { waitJobRun } from './wait-job-run.ts';

/**
 * Carry the plan out, phase by phase: API and worker together (both specs change at once, then
 * both must converge and report the tag), then web. The first thing that goes wrong stops it and
 * is kept as the failure; the rollback step puts back every service touched so far.
 *
 * A plan with nothing to change while the deployment is not in step is Swarm still at work (an
 * update just written, a task of the old image being stopped): it is waited for, under the same
 * deadline, rather than proved half-way and reported as drift.
 */
export const applySwarmStep: Step<SwarmUpgradeContext> = {
  title: 'Upgrade the services',
  writes: true,
  skip: (ctx) => (ctx.plan!.upToDate && ctx.inStepBefore ? `every service already runs ${ctx.tag}` : false),
  async run(ctx, io) {
    const deadline = Date.now() + ctx.timeoutMs;
    try {
      for (const phase of ctx.plan!.phases) {
        if (ctx.plan!.upToDate) await settlePhase(ctx, phase, deadline, io);
        else await runPhase(ctx, phase, deadline, io);
      }
      io.progress(`every service runs ${ctx.tag}`);
    } catch (error) {
      ctx.failure = failureOf(error);
      record(ctx, `failed: ${ctx.failure.reason}`);
      io.progress(`failed: ${ctx.failure.reason}`);
    }
  },
};

async function runPhase(ctx: SwarmUpgradeContext, phase: PlannedService[], deadline: number, io: StepIO) {
  const changing = phase.filter((s) => s.changes);
  // Settled, not raced: when one update is refused, the other may still land, and it must be in
  // `touched` before the rollback decides what to put back.
  const settled = await Promise.allSettled(
    changing.map(async (planned) => {
      const service = ctx.running!.find((s) => s.name === planned.name)!;
      const before = new Set((await listTasks(ctx.docker, service.id)).map((t) => t.id));
      const spec = nextSpec(service.spec, planned);
      await updateService(ctx.docker, service.id, service.versionIndex, spec);
      // Only after the engine took it: an update refused (someone changed the service since it was
      // read: the version index is stale) changed nothing, and a rollback must not overwrite theirs.
      ctx.touched.add(planned.name);
      record(ctx, `${planned.name}: updated to ${planned.to.image} (${planned.order})`);
      return { planned, service, spec, before };
    }),
  );
  const refused = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (refused) throw refused.reason;
  const updated = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  let failed = false;
  await Promise.all(
    updated.map(({ planned, service, spec, before }) =>
      planned.oneShot
        ? waitJobRun({
            docker: ctx.docker,
            serviceId: service.id,
            name: planned.name,
            role: planned.role,
            image: planned.to.image,
            before,
            deadline,
            progress: io.progress,
          }).then(
            () => record(ctx, `${planned.name}: its run on ${planned.to.digest.slice(0, 19)} completed`),
            (error: unknown) => {
              failed = true;
              throw error;
            },
          )
        : waitSwarmConverged({
            docker: ctx.docker,
            serviceId: service.id,
            name: planned.name,
            role: planned.role,
            spec,
            before,
            stableMs: ctx.monitorMs,
            deadline,
            cancelled: () => failed,
            progress: io.progress,
            record: (text) => record(ctx, text),
          }).then(
            // A wait also ends without error when a sibling failed: that is no convergence to record.
            () => failed || record(ctx, `${planned.name}: converged on ${planned.to.digest.slice(0, 19)}`),
            (error: unknown) => {
              failed = true;
              throw error;
            },
          ),
    ),
  );
  await waitVersions(ctx, phase, deadline, io);
}

/** Nothing to write: wait until Swarm has converged on the specs already there, then the versions. */
async function settlePhase(ctx: SwarmUpgradeContext, phase: PlannedService[], deadline: number, io: StepIO) {
  // A job already on the target has had its run: the proof reads how it ended.
  await Promise.all(
    phase
      .filter((planned) => !planned.oneShot)
      .map(async (planned) => {
        const service = ctx.running!.find((s) => s.name === planned.name)!;
        await waitSwarmConverged({
          docker: ctx.docker,
          serviceId: service.id,
          name: planned.name,
          role: planned.role,
          spec: service.spec,
          // Every task listed now is history this run did not make: only its outcome is waited for.
          before: new Set((await listTasks(ctx.docker, service.id)).map((t) => t.id)),
          stableMs: ctx.monitorMs,
          deadline,
          cancelled: () => false,
          progress: io.progress,
          record: (text) => record(ctx, text),
        });
        record(ctx, `${planned.name}: already on ${planned.to.digest.slice(0, 19)}; Swarm has settled`);
      }),
  );
  await waitVersions(ctx, phase, deadline, io);
}

/** Every service of the phase reports the tag: API over HTTP, worker and web from the engine. */
async function waitVersions(ctx: SwarmUpgradeContext, phase: PlannedService[], deadline: number, io: StepIO) {
  for (const planned of phase.filter((p) => !p.oneShot)) {
    const service = ctx.running!.find((s) => s.name === planned.name)!;
    await waitReportedVersion(
      { service: planned.name, role: planned.role, version: ctx.tag },
      async () => {
        if (planned.role === 'api') return reportedApiVersion(ctx, deadline);
        const { versions } = await readTaskVersions(
          ctx.docker,
          service.id,
          planned.role,
          planned.to.image,
          versionReadOrder(ctx.config),
        );
        return { seen: versions, last: versions.join(', ') || 'no running task' };
      },
      deadline,
      io.progress,
    );
    record(ctx, `${planned.name}: reports ${ctx.tag}`);
  }
}
