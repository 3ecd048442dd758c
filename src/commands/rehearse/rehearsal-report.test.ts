import { describe, expect, it } from 'vitest';
import type { RehearsalReport } from './rehearsal-report.ts';
import { rehearsalReport, renderRehearsal } from './rehearsal-report.ts';
import type { RehearseContext } from './rehearse-context.ts';
import { NOT_STARTED } from './rehearse-lanes.ts';

describe('renderRehearsal', () => {
  it("shows the build step's breakdown under it, one indented line per artifact", () => {
    const report: RehearsalReport = {
      ok: true,
      engine: 'oci',
      totalMs: 6400,
      workspace: { path: '/tmp/w', kept: false },
      steps: [
        { title: 'Stamp the version from git', status: 'done', ms: 80, detail: 'v1.0.0-rc.1' },
        {
          title: 'Build every artifact',
          status: 'done',
          ms: 2600,
          detail: 'engine oci',
          breakdown: {
            totalMs: 2400,
            steps: [{ title: 'Build the images', status: 'done', ms: 120 }],
            artifacts: [
              {
                name: 'api',
                kind: 'artifact',
                ms: 640,
                steps: [
                  { name: 'build command', ms: 140 },
                  { name: 'validate sbom', ms: 500 },
                ],
              },
              { name: 'node:20', kind: 'base', ms: 1500, steps: [{ name: 'check', ms: 1500 }] },
            ],
          },
        },
      ],
    };
    expect(renderRehearsal(report)).toEqual([
      '',
      'Rehearsal report',
      '',
      'ok      80 ms  Stamp the version from git',
      '                 v1.0.0-rc.1',
      'ok      2.6 s  Build every artifact',
      '                 engine oci',
      '                 api            640 ms  build command 140 ms, validate sbom 500 ms',
      '                 base node:20    1.5 s  check 1.5 s',
      '',
      'rehearsal passed in 6.4 s',
    ]);
  });
});

describe('rehearsalReport of steps run in lanes side by side', () => {
  const lanesTitle = 'Check the deployment, side by side';
  const ctx = {
    engine: 'oci',
    keep: false,
    workspace: '/tmp/w',
    notes: { 'Install svc': 'svc v1.0.0', 'Show the gate': 'exit 3' },
    breakdowns: {},
    laneReports: {
      [lanesTitle]: [
        [
          { title: 'Install svc', status: 'done', ms: 900, lane: 1 },
          { title: 'Verify', status: 'failed', reason: 'drift\nmore', ms: 700, lane: 1 },
        ],
        [
          { title: 'Show the gate', status: 'done', ms: 100, lane: 2 },
          { title: 'Update', status: 'skipped', reason: NOT_STARTED, ms: 0, lane: 2 },
        ],
      ],
    },
  } as unknown as RehearseContext;

  it('shows each step of the lanes in place of the lanes, lane by lane, with its lane, note and time', () => {
    const report = rehearsalReport(
      ctx,
      [
        { title: 'Start the deployment', status: 'done', ms: 200 },
        { title: lanesTitle, status: 'failed', reason: 'drift', ms: 1600 },
      ],
      1900,
      new Error('drift'),
    );
    expect(report.steps).toEqual([
      { title: 'Start the deployment', status: 'done', ms: 200 },
      { title: 'Install svc', status: 'done', ms: 900, lane: 1, detail: 'svc v1.0.0' },
      { title: 'Verify', status: 'failed', reason: 'drift\nmore', ms: 700, lane: 1 },
      { title: 'Show the gate', status: 'done', ms: 100, lane: 2, detail: 'exit 3' },
      { title: 'Update', status: 'skipped', reason: NOT_STARTED, ms: 0, lane: 2 },
    ]);
    expect(renderRehearsal(report).slice(3, 10)).toEqual([
      'ok     200 ms  Start the deployment',
      'ok     900 ms  Install svc  (lane 1, side by side)',
      '                 svc v1.0.0',
      'FAIL   700 ms  Verify  (lane 1, side by side)',
      '                 drift',
      'ok     100 ms  Show the gate  (lane 2, side by side)',
      '                 exit 3',
    ]);
  });
});
