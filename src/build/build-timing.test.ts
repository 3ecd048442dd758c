import { describe, expect, it } from 'vitest';
import { buildTiming, renderBuildTiming } from './build-timing.ts';

describe('buildTiming', () => {
  const timing = buildTiming(
    [
      { title: 'Build the images', status: 'done', ms: 300 },
      { title: 'Write the SBOM and provenance of each image', status: 'skipped', reason: 'x', ms: 0 },
    ],
    [
      { subject: 'oci-layout:.release/base/node:20', step: 'check', ms: 2 },
      { subject: 'web', step: 'layers', ms: 20 },
      { subject: 'api', step: 'build command', ms: 1200 },
      { subject: 'api', step: 'layers', ms: 5 },
    ],
    1500.4,
    ['api', 'worker', 'web', 'cli'],
  );

  it('lists the steps and the artifacts in config order, a base image after them', () => {
    expect(timing.totalMs).toBe(1500);
    expect(timing.steps).toEqual([
      { title: 'Build the images', status: 'done', ms: 300 },
      { title: 'Write the SBOM and provenance of each image', status: 'skipped', ms: 0 },
    ]);
    expect(timing.artifacts.map((a) => [a.name, a.kind, a.ms])).toEqual([
      ['api', 'artifact', 1205],
      ['web', 'artifact', 20],
      ['oci-layout:.release/base/node:20', 'base', 2],
    ]);
  });

  it('prints the total, then one indented line per artifact with its sub-steps', () => {
    expect(renderBuildTiming(timing)).toEqual([
      'built in 1.5 s',
      '  api                                      1.2 s  build command 1.2 s, layers 5 ms',
      '  web                                      20 ms  layers 20 ms',
      '  base oci-layout:.release/base/node:20     2 ms  check 2 ms',
    ]);
  });
});
