import type { StepReport } from '../pipeline/step.ts';
import { formatMs, type SubjectTimes, type Timing, timesBySubject } from '../pipeline/timings.ts';

/**
 * Where a `release build` spent its time: the whole run, each pipeline step, and each artifact
 * (and each base image it checked or made) by sub-step. An artifact's `ms` is the sum of its
 * sub-steps; artifacts built side by side overlap, so their sum may exceed `totalMs`.
 */
export interface BuildTiming {
  totalMs: number;
  steps: { title: string; status: StepReport['status']; ms: number }[];
  artifacts: (SubjectTimes & { kind: 'artifact' | 'base' })[];
}

export function buildTiming(
  reports: readonly StepReport[],
  timings: readonly Timing[],
  totalMs: number,
  artifactNames: readonly string[],
): BuildTiming {
  return {
    totalMs: Math.round(totalMs),
    steps: reports.map(({ title, status, ms }) => ({ title, status, ms })),
    artifacts: timesBySubject(timings, artifactNames).map((subject) => ({
      ...subject,
      kind: artifactNames.includes(subject.name) ? 'artifact' : 'base',
    })),
  };
}

/** One indented line per artifact and base image: its time, then its sub-steps. */
export function timingLines(timing: BuildTiming): string[] {
  const label = (s: BuildTiming['artifacts'][number]) => (s.kind === 'base' ? `base ${s.name}` : s.name);
  const width = Math.max(0, ...timing.artifacts.map((s) => label(s).length));
  return timing.artifacts.map(
    (s) =>
      `  ${label(s).padEnd(width)}  ${formatMs(s.ms).padStart(7)}  ${s.steps.map((step) => `${step.name} ${formatMs(step.ms)}`).join(', ')}`,
  );
}

/** The human output's closing lines: the total, then the breakdown. */
export function renderBuildTiming(timing: BuildTiming): string[] {
  return [`built in ${formatMs(timing.totalMs)}`, ...timingLines(timing)];
}
