import type { Step, StepIO } from '../../pipeline/step.ts';
import type { LaneStepReport, RehearseContext } from './rehearse-context.ts';

/** The reason given for a lane's step that never started because a step (in any lane) failed. */
export const NOT_STARTED = 'not started: an earlier step or one beside it failed';

/**
 * Rehearsal steps that share nothing, run as lanes side by side: each lane's steps in order, the
 * lanes at once (what one lane waits for, a process of npm or of `release verify`, leaves the
 * machine's other core to the next lane). Each step is still a step of the report of its own: its
 * time, its status and its lane are kept in `ctx.laneReports` under this step's title, which the
 * report shows in its place, lane by lane. Once a step fails no lane starts another; every step
 * under way is waited for (nothing is left running), then the first failure in lane order is
 * rethrown as it was.
 */
export function rehearseLanes(
  title: string,
  lanes: readonly (readonly Step<RehearseContext>[])[],
): Step<RehearseContext> {
  return {
    title,
    async run(ctx, io) {
      const reports: LaneStepReport[][] = lanes.map(() => []);
      ctx.laneReports[title] = reports;
      const state = { failed: false };
      const results = await Promise.allSettled(
        lanes.map((lane, i) => runLane(lane, i + 1, ctx, io, state, reports[i]!)),
      );
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}

async function runLane(
  lane: readonly Step<RehearseContext>[],
  number: number,
  ctx: RehearseContext,
  io: StepIO,
  state: { failed: boolean },
  reports: LaneStepReport[],
): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (const step of lane) {
    if (state.failed) {
      reports.push({ title: step.title, status: 'skipped', reason: NOT_STARTED, ms: 0, lane: number });
      continue;
    }
    const reason = step.skip?.(ctx);
    if (reason) {
      reports.push({ title: step.title, status: 'skipped', reason, ms: 0, lane: number });
      continue;
    }
    io.progress(step.title);
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    try {
      await step.run(ctx, { progress: (message) => io.progress(`${step.title}: ${message}`) });
      reports.push({ title: step.title, status: 'done', ms: ms(), lane: number });
    } catch (error) {
      state.failed = true;
      const message = error instanceof Error ? error.message : String(error);
      reports.push({ title: step.title, status: 'failed', reason: message, ms: ms(), lane: number });
      failure = { error };
    }
  }
  // The lane's own later steps were reported as not started above.
  if (failure) throw failure.error;
}
