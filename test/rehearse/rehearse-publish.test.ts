import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

interface Report {
  ok: boolean;
  workspace: { path: string | null; kept: boolean };
  steps: { title: string; status: string; detail?: string }[];
  error?: { code: string; message: string };
}

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

describe('release rehearse --publish (a Verdaccio of its own)', () => {
  it('publishes the CLI package through dev, rc and release and installs it back', {
    timeout: 600_000,
  }, async () => {
    const result = await runRelease(['rehearse', '--publish', '--json'], {
      cwd: tmpdir(),
      timeoutMs: 580_000,
    });
    const report = jsonOf<Report>(result);
    expect(report.error).toBeUndefined();
    expect(result.code).toBe(0);
    const detail = (title: string) => report.steps.find((s) => s.title.startsWith(title))?.detail ?? '';
    expect(detail('Start a local npm registry')).toMatch(/^Verdaccio on http:\/\/127\.0\.0\.1:\d+\/ /);
    expect(detail('Install the released CLI package')).toBe(
      'dist-tags latest=1.0.0 next=1.0.0-rc.1 dev=1.0.0-rc.1; npm install -g service-cli@1.0.0 -> svc v1.0.0',
    );
    // Nothing left running (Verdaccio ran from the workspace's config), workspace removed.
    expect(processesMentioning(report.workspace.path!)).toEqual([]);
    expect(existsSync(report.workspace.path!)).toBe(false);
  });
});
