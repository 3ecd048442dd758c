import { type BuildTiming, timingLines } from '../../build/build-timing.ts';
import { INTERNAL } from '../../errors.ts';
import type { StepReport } from '../../pipeline/step.ts';
import { formatMs } from '../../pipeline/timings.ts';
import type { RehearseContext } from './rehearse-context.ts';

export interface RehearsalReport {
  ok: boolean;
  engine: 'oci' | 'docker';
  totalMs: number;
  /** Where the workspace was; `kept` says whether it is still there. */
  workspace: { path: string | null; kept: boolean };
  /**
   * Each step; the build's carries `breakdown`: its time per artifact and sub-step. Steps run in
   * lanes side by side carry their `lane` (1, 2): their times overlap.
   */
  steps: (StepReport & { detail?: string; breakdown?: BuildTiming; lane?: number })[];
  error?: { code: string; message: string };
}

export function rehearsalReport(
  ctx: RehearseContext,
  reports: StepReport[],
  totalMs: number,
  failure: unknown,
): RehearsalReport {
  // A step of lanes side by side is shown as the steps it ran, lane by lane.
  const steps = reports
    .flatMap((step) => ctx.laneReports[step.title]?.flat() ?? [step])
    .map((step) => ({
      ...step,
      ...(ctx.notes[step.title] ? { detail: ctx.notes[step.title] } : {}),
      ...(ctx.breakdowns[step.title] ? { breakdown: ctx.breakdowns[step.title] } : {}),
    }));
  return {
    ok: failure === undefined,
    engine: ctx.engine,
    totalMs: Math.round(totalMs),
    workspace: { path: ctx.workspace ?? null, kept: ctx.keep },
    steps,
    ...(failure !== undefined
      ? {
          error: {
            code: (failure as { code?: string }).code ?? INTERNAL,
            message: failure instanceof Error ? failure.message : String(failure),
          },
        }
      : {}),
  };
}

/** The human report: one line per step with its time and what it found. */
export function renderRehearsal(report: RehearsalReport): string[] {
  const mark = { done: 'ok  ', skipped: 'skip', failed: 'FAIL' } as const;
  const lines = ['', 'Rehearsal report', ''];
  for (const step of report.steps) {
    // A lane's steps overlap the other lane's: their times do not add up.
    const lane = step.lane === undefined ? '' : `  (lane ${step.lane}, side by side)`;
    lines.push(`${mark[step.status]}  ${formatMs(step.ms).padStart(7)}  ${step.title}${lane}`);
    // A failure or a skip says why; a step that ran says what it found.
    const detail = step.status === 'done' ? step.detail : step.reason?.split('\n')[0];
    if (detail) lines.push(`                 ${detail}`);
    if (step.breakdown) for (const line of timingLines(step.breakdown)) lines.push(`               ${line}`);
  }
  lines.push('', `${report.ok ? 'rehearsal passed' : 'rehearsal FAILED'} in ${formatMs(report.totalMs)}`);
  if (report.workspace.kept && report.workspace.path)
    lines.push(`workspace kept at ${report.workspace.path}`);
  return lines;
}
