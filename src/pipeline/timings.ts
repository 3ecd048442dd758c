/**
 * Where a step's time goes, below the runner's one figure per step: each piece of work is timed
 * under the thing it is for (an artifact, a base image) and what it was (its build command, its
 * layers, its SBOM). The runner times steps; a step that does work for several things records
 * them here so `release build` can say which artifact and which sub-step cost what.
 */

/** One timed piece of work. */
export interface Timing {
  /** What the work was for: an artifact's name (`api`, `cli`) or a base image's reference. */
  subject: string;
  /** What the work was: `build command`, `layers`, `sbom and provenance`. */
  step: string;
  ms: number;
}

/** Time `work` under `subject` and `step`; a failure is recorded too, then rethrown. */
export type TimeFn = <T>(subject: string, step: string, work: () => Promise<T>) => Promise<T>;

export interface Timer {
  time: TimeFn;
  /** Everything recorded so far, in the order the pieces finished. */
  readonly timings: readonly Timing[];
}

export function createTimer(now: () => number = () => performance.now()): Timer {
  const timings: Timing[] = [];
  return {
    timings,
    async time(subject, step, work) {
      const started = now();
      try {
        return await work();
      } finally {
        timings.push({ subject, step, ms: Math.max(0, Math.round(now() - started)) });
      }
    },
  };
}

/** A timer that records nothing: for callers that do not ask where the time went. */
export const untimed: TimeFn = (_subject, _step, work) => work();

/** One subject's figures: its sub-steps in first-seen order (repeats added up) and their sum. */
export interface SubjectTimes {
  name: string;
  ms: number;
  steps: { name: string; ms: number }[];
}

/**
 * Group timings by subject, in the order given by `order` first (the configured artifacts), then
 * any other subject as first seen. A subject's `ms` is the sum of its sub-steps: the work done for
 * it, which may overlap another subject's when they ran side by side.
 */
export function timesBySubject(timings: readonly Timing[], order: readonly string[] = []): SubjectTimes[] {
  const subjects = new Map<string, Map<string, number>>();
  for (const name of order) subjects.set(name, new Map());
  for (const { subject, step, ms } of timings) {
    const steps = subjects.get(subject) ?? new Map<string, number>();
    steps.set(step, (steps.get(step) ?? 0) + ms);
    subjects.set(subject, steps);
  }
  return [...subjects]
    .filter(([, steps]) => steps.size > 0)
    .map(([name, steps]) => {
      const list = [...steps].map(([step, ms]) => ({ name: step, ms }));
      return { name, ms: list.reduce((sum, s) => sum + s.ms, 0), steps: list };
    });
}

/** `1.2 s` from a second up, else `340 ms`: the figures the human outputs print. */
export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}
