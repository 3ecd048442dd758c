import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { BuildTiming } from '../../src/build/build-timing.ts';
import { expectBuildTiming } from '../helpers/build-timing.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A command as docs/getting-started.md writes it, from this checkout: its exit code and output. */
function runInCheckout(command: string, args: string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: ROOT, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

interface Report {
  ok: boolean;
  totalMs: number;
  workspace: { path: string | null; kept: boolean };
  steps: {
    title: string;
    status: string;
    ms: number;
    detail?: string;
    reason?: string;
    breakdown?: BuildTiming;
    lane?: number;
  }[];
  error?: { code: string; message: string };
}

/** Processes whose command line mentions `needle` (the rehearsal's services run from its workspace). */
function processesMentioning(needle: string): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      } catch {
        return '';
      }
    })
    .filter((cmd) => cmd.includes(needle));
}

describe('release rehearse (embedded default: no Docker, no registry)', () => {
  it('runs the whole pipeline, reports every step, and cleans up', { timeout: 600_000 }, async () => {
    // The command docs/getting-started.md gives: npm's -s keeps its script banner off stdout, so
    // the whole of stdout is one JSON document (the build before it prints nothing there either).
    expect(readFileSync(`${ROOT}docs/getting-started.md`, 'utf8')).toContain(
      '`npm run -s rehearse -- --json`',
    );
    const result = await runInCheckout('npm', ['run', '-s', 'rehearse', '--', '--json'], 580_000);
    const report = jsonOf<Report>(result);
    expect(report.error).toBeUndefined();
    expect(result.code).toBe(0);
    expect(report.ok).toBe(true);

    expect(report.steps.map((s) => s.title)).toEqual([
      'Prepare a workspace',
      'Start a local registry',
      'Start a local npm registry',
      'Make a git repository from the reference service',
      'Stamp the version from git',
      'Build every artifact',
      'Promote to dev',
      'Promote the release candidate (signed), leaving latest alone',
      'Release the rc as the full release (re-stamped, same code layers)',
      'Install the released CLI package from the npm registry',
      'Start the deployment on loopback (API, worker, web)',
      'Install svc from the API',
      'Verify the deployment is in step',
      'Show the gate blocking an old CLI (v0.9.0)',
      'Update the old CLI with svc update --url',
      'Verify again with the updated CLI',
    ]);
    for (const step of report.steps) {
      const skipped = [
        'Start a local registry',
        'Start a local npm registry',
        'Install the released CLI package',
      ];
      expect(step.status).toBe(skipped.some((t) => step.title.startsWith(t)) ? 'skipped' : 'done');
      expect(step.ms).toBeGreaterThanOrEqual(0);
    }
    // The two CLIs' paths ran as lanes side by side: the current CLI's install and verify, and
    // the old CLI's gate, update and verify.
    expect(
      report.steps.filter((s) => s.lane !== undefined).map((s) => [s.lane, s.title.split(' ')[0]]),
    ).toEqual([
      [1, 'Install'],
      [1, 'Verify'],
      [2, 'Show'],
      [2, 'Update'],
      [2, 'Verify'],
    ]);
    // The steps fit in the rehearsal's total, the lanes' overlapping times counted once (the longer lane).
    const sum = (steps: Report['steps']) => steps.reduce((total, s) => total + s.ms, 0);
    const lane = (n: number) => sum(report.steps.filter((s) => s.lane === n));
    const stepsMs = sum(report.steps.filter((s) => s.lane === undefined)) + Math.max(lane(1), lane(2));
    expect(stepsMs).toBeLessThanOrEqual(report.totalMs + report.steps.length);
    // Only the build step is broken down: per artifact (and the base it made) and sub-step, signed.
    const build = report.steps.find((s) => s.title === 'Build every artifact')!;
    expect(report.steps.filter((s) => s.breakdown).map((s) => s.title)).toEqual([build.title]);
    expectBuildTiming(build.breakdown!, {
      images: ['api', 'worker', 'web'],
      cli: 'cli',
      signed: true,
      base: 'oci-layout:.release/base/node:20',
    });
    // `release build` ran inside the step (a process of its own, started after the step began).
    expect(build.breakdown!.totalMs).toBeLessThanOrEqual(build.ms);
    expect(report.steps[1]!.reason).toBe('the embedded OCI layout needs no registry');
    const detail = (title: string) => report.steps.find((s) => s.title.startsWith(title))?.detail ?? '';
    expect(detail('Stamp')).toBe('v1.0.0-rc.1 from git, channel rc');
    expect(detail('Build')).toMatch(
      /^engine oci; api sha256:[0-9a-f]{12}, worker sha256:[0-9a-f]{12}, web sha256:[0-9a-f]{12} under build-[0-9a-f]{12} \(no version tag yet\); cli sha256 [0-9a-f]{12}, signed \(dist\/service-cli\.tar\.gz\.sig\)$/,
    );
    expect(detail('Promote the release candidate')).toContain('latest: absent, untouched');
    // The release is the rc re-stamped (same code layers) and reports its own tag.
    expect(detail('Release the rc')).toBe(
      'v1.0.0 and latest re-stamped from the signed rc, reporting v1.0.0; code layers: api 2 equal + version layer, worker 2 equal, web 2 equal + version layer; release signed, bound to the rc',
    );
    expect(detail('Install svc')).toMatch(/^svc v1\.0\.0 in /);
    expect(detail('Verify the deployment')).toBe(
      'in step at v1.0.0: api v1.0.0, worker v1.0.0, web v1.0.0, cli v1.0.0; api image v1.0.0 = rc code, worker image v1.0.0 = rc code, web image v1.0.0 = rc code',
    );
    expect(detail('Show the gate')).toMatch(
      /^exit 3: .*v0\.9\.0.*1\.0\.0.*npm install -g http:\/\/127\.0\.0\.1:\d+\/api\/cli\/download\/service-cli\.tar\.gz/,
    );
    // The old svc has the release key baked in: it checked the re-signed release archive.
    expect(detail('Update the old CLI')).toMatch(
      /^now svc v1\.0\.0, archive signature verified with key [0-9a-f]{16}; svc status runs \(exit 0\)$/,
    );
    expect(detail('Update the old CLI')).toContain(detail('Make a git repository').split('release key ')[1]!);

    // Everything it started is gone: the workspace and every process that ran from it.
    expect(report.workspace.kept).toBe(false);
    expect(report.workspace.path).toMatch(/service-release-rehearsal-/);
    expect(existsSync(report.workspace.path!)).toBe(false);
    expect(processesMentioning(report.workspace.path!)).toEqual([]);
    // The progress display goes to stderr; stdout is the one JSON document.
    expect(result.stdout.trim().startsWith('{')).toBe(true);
  });

  it('stops at a missing tool, exits 3, reports the failed step and removes its workspace', async () => {
    // No git on PATH: the first step cannot make its repository.
    // A real process: git is started with the process's own PATH.
    const result = await runRelease(['rehearse', '--json'], {
      cwd: tmpdir(),
      env: { PATH: '/nonexistent' },
      subprocess: true,
    });
    expect(result.code).toBe(3);
    const report = jsonOf<Report>(result);
    expect(report.ok).toBe(false);
    expect(report.error?.code).toBe('GIT_MISSING');
    expect(report.steps.map((s) => s.status)).toEqual(['done', 'skipped', 'skipped', 'failed']);
    expect(report.steps[3]).toMatchObject({ title: 'Make a git repository from the reference service' });
    expect(report.steps[3]!.reason).toMatch(/git is not installed or not on PATH/);
    expect(existsSync(report.workspace.path!)).toBe(false);
  });

  it('prints a readable report on a terminal-less run without --json', async () => {
    const result = await runRelease(['rehearse'], {
      cwd: tmpdir(),
      env: { PATH: '/nonexistent' },
      subprocess: true,
    });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/Rehearsal report/);
    expect(result.stdout).toMatch(/FAIL .*Make a git repository from the reference service/);
    expect(result.stdout).toMatch(
      /skip .*Start a local registry\n\s+the embedded OCI layout needs no registry/,
    );
    expect(result.stdout).toMatch(/rehearsal FAILED in/);
    expect(result.stderr).toMatch(/error: git is not installed/);
    expect(result.stderr).toMatch(/hint: install git/);
  });
});
