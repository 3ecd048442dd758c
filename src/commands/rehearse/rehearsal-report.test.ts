import { describe, expect, it } from 'vitest';
import type { RehearsalReport } from './rehearsal-report.ts';
import { renderRehearsal } from './rehearsal-report.ts';

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
