import { COMPOSE_CALL_MIN_MS, runCompose } from '../../../deployment-engines/compose/compose-cli.ts';
import { writeFileAtomically } from '../../../files/atomic-write.ts';
import type { Step, StepIO } from '../../../pipeline/step.ts';
import { renderOverride } from '../../../upgrade/compose/compose-override.ts';
import type { ComposeMove } from '../../../upgrade/compose/compose-plan.ts';
import { failureOf } from '../../../upgrade/deployment-types.ts';
import { record } from '../upgrade-context.ts';
import { type ComposeUpgradeContext, composeFiles } from './compose-context.ts';
import { waitComposeConverged, waitComposeVersions } from './compose-wait.ts';

/**
 * Carry the plan out: the override pinning every moving service, the images pulled, the
 * one-shots run to completion, then API, worker and their image's services recreated in one
 * `up -d --no-deps` and waited for under one deadline (digest, health, versions); then web.
 * The first thing that goes wrong stops it and is kept as the failure for the rollback step.
 */
export const applyComposeStep: Step<ComposeUpgradeContext> = {
  title: 'Upgrade the services',
  writes: true,
  skip: (ctx) => (ctx.plan!.upToDate ? `every service already runs ${ctx.tag}` : false),
  async run(ctx, io) {
    const deadline = Date.now() + ctx.timeoutMs;
    const plan = ctx.plan!;
    try {
      await writeFileAtomically(
        ctx.overridePath,
        renderOverride({ tag: ctx.tag, pins: plan.pins, version: ctx.fileVersion }),
      );
      ctx.overrideWritten = true;
      record(ctx, `override written: ${ctx.overridePath}`);
      // Pulled before anything stops: the gap between the old container and the new is then the
      // start alone, and an image the engine cannot pull fails here with nothing recreated.
      await compose(ctx, ['pull', ...Object.keys(plan.pins)], deadline);
      record(ctx, `pulled ${Object.keys(plan.pins).join(', ')}`);
      if (plan.oneShots.length > 0) await runPhase(ctx, plan.oneShots, deadline, io);
      for (const phase of plan.phases) await runPhase(ctx, phase, deadline, io);
      io.progress(`every service runs ${ctx.tag}`);
    } catch (error) {
      ctx.failure = failureOf(error);
      record(ctx, `failed: ${ctx.failure.reason}`);
      io.progress(`failed: ${ctx.failure.reason}`);
    }
  },
};

async function runPhase(ctx: ComposeUpgradeContext, phase: ComposeMove[], deadline: number, io: StepIO) {
  const names = phase.map((m) => m.service);
  // Touched before the call: a Compose that fails half-way may have recreated some of them.
  for (const name of names) ctx.touched.add(name);
  await compose(ctx, ['up', '-d', '--no-deps', ...names], deadline);
  record(ctx, `up -d --no-deps ${names.join(' ')}`);
  await waitComposeConverged(
    ctx,
    phase.map((m) => ({
      service: m.service,
      digest: m.to?.digest,
      replicas: m.replicas,
      oneShot: m.oneShot,
    })),
    deadline,
    { progress: io.progress },
  );
  record(ctx, `${names.join(', ')}: ${phase[0]!.oneShot ? 'completed' : `running ${ctx.tag}`}`);
  const versioned = phase.filter((m) => !m.oneShot && m.to);
  await waitComposeVersions(
    ctx,
    versioned.map((m) => ({ service: m.service, role: m.role, version: ctx.tag })),
    deadline,
    io.progress,
  );
  if (versioned.length > 0) record(ctx, `${versioned.map((m) => m.service).join(', ')}: report ${ctx.tag}`);
}

function compose(ctx: ComposeUpgradeContext, args: string[], deadline: number): Promise<string> {
  return runCompose(
    ctx.cli,
    { files: composeFiles(ctx, true), name: ctx.project.name, dir: ctx.project.dir },
    args,
    { env: ctx.env, timeoutMs: Math.max(COMPOSE_CALL_MIN_MS, deadline - Date.now()) },
  );
}
