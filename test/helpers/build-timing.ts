import { expect } from 'vitest';
import type { BuildTiming } from '../../src/build/build-timing.ts';

/** What each kind of subject must have been timed on, at least. */
const IMAGE_STEPS = ['recipe', 'layers', 'write', 'sbom and provenance', 'validate sbom', 'reversion'];

/**
 * The breakdown `release build --json` gives (and the rehearsal report carries) is whole and
 * consistent: every artifact built is named with its sub-steps, every figure is a duration, the
 * steps fit in the total and each subject's sub-steps add up to its own figure. Never the times
 * themselves: those belong to `npm run bench:rehearse`.
 */
export function expectBuildTiming(
  timing: BuildTiming,
  expected: {
    images: string[];
    cli?: string;
    signed: boolean;
    base?: string;
    /** Images the config gives no build command: nothing ran for them, so none is timed. */
    withoutCommand?: string[];
  },
): void {
  // Each figure is rounded on its own: allow half a millisecond of rounding per figure summed.
  const within = (parts: number[], total: number) =>
    expect(parts.reduce((sum, ms) => sum + ms, 0)).toBeLessThanOrEqual(total + parts.length);
  expect(timing.totalMs).toBeGreaterThanOrEqual(0);
  expect(timing.steps.length).toBeGreaterThan(0);
  for (const step of timing.steps) {
    expect(step.title).toEqual(expect.any(String));
    expect(step.ms).toBeGreaterThanOrEqual(0);
  }
  expect(timing.steps.map((s) => s.title)).toEqual(
    expect.arrayContaining(['Build the images', 'Write the SBOM and provenance of each image']),
  );
  within(
    timing.steps.map((s) => s.ms),
    timing.totalMs,
  );

  const names = timing.artifacts.map((a) => a.name);
  expect(names).toEqual(
    expect.arrayContaining([...expected.images, ...(expected.cli ? [expected.cli] : [])]),
  );
  for (const subject of timing.artifacts) {
    expect(subject.steps.length, subject.name).toBeGreaterThan(0);
    for (const step of subject.steps)
      expect(step.ms, `${subject.name} ${step.name}`).toBeGreaterThanOrEqual(0);
    // An artifact's figure is the sum of its sub-steps, and they ran within the build.
    expect(subject.ms, subject.name).toBe(subject.steps.reduce((sum, s) => sum + s.ms, 0));
    within(
      subject.steps.map((s) => s.ms),
      timing.totalMs,
    );
    expect(subject.kind, subject.name).toBe(
      [...expected.images, expected.cli].includes(subject.name) ? 'artifact' : 'base',
    );
  }
  const stepsOf = (name: string) => timing.artifacts.find((a) => a.name === name)?.steps.map((s) => s.name);
  for (const image of expected.images) {
    const withCommand = !expected.withoutCommand?.includes(image);
    expect(stepsOf(image), image).toEqual(
      expect.arrayContaining([
        ...IMAGE_STEPS,
        ...(withCommand ? ['build command'] : []),
        ...(expected.signed ? ['sign and attach'] : []),
      ]),
    );
    if (!withCommand) expect(stepsOf(image), image).not.toContain('build command');
  }
  if (expected.cli)
    expect(stepsOf(expected.cli)).toEqual(
      expect.arrayContaining(['build command', 'reversion', ...(expected.signed ? ['sign'] : [])]),
    );
  if (expected.base)
    expect(stepsOf(expected.base)).toEqual(
      expect.arrayContaining(['check', "make from this machine's node"]),
    );
}
