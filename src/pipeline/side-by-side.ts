import type { Step, StepIO } from './step.ts';

/**
 * Independent work as one step: each lane's steps run in order, the lanes side by side (work in
 * this process, such as compressing a base image, overlaps the child processes of another lane).
 * Only steps that share nothing may go in different lanes. A step that does not apply is passed
 * over with its reason shown; the step skips when every inner step does. It writes when any
 * inner step writes, so `--dry-run` skips it whole. Once a step fails no lane starts another, and
 * every step under way is waited for, so nothing is left running; then the first failure, in lane
 * order, is rethrown untouched.
 */
export function sideBySide<C>(title: string, lanes: readonly (readonly Step<C>[])[]): Step<C> {
  const steps = lanes.flat();
  return {
    title,
    ...(steps.some((step) => step.writes) ? { writes: true as const } : {}),
    skip(ctx) {
      const reasons = steps.map((step) => step.skip?.(ctx) || false);
      return reasons.every(Boolean) ? [...new Set(reasons)].join('; ') : false;
    },
    async run(ctx, io) {
      const state = { failed: false };
      const results = await Promise.allSettled(lanes.map((lane) => runLane(lane, ctx, io, state)));
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    },
  };
}

/** One lane in order; once any lane has failed, a lane starts no further step. */
async function runLane<C>(
  lane: readonly Step<C>[],
  ctx: C,
  io: StepIO,
  state: { failed: boolean },
): Promise<void> {
  for (const step of lane) {
    if (state.failed) return;
    const reason = step.skip?.(ctx);
    if (reason) {
      io.progress(`${step.title}: skipped (${reason})`);
      continue;
    }
    io.progress(step.title);
    try {
      await step.run(ctx, io);
    } catch (error) {
      state.failed = true;
      throw error;
    }
  }
}
