import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The runner's clean stop (`stopsCleanly`): a signal is process-wide state, so each scenario runs
// in a process of its own (node with tsx), on steps that record what they did.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function scenario(signalDuring: 'read' | 'write' | 'never'): {
  done: string[];
  reports: { title: string; status: string; reason?: string }[];
  error?: { code: string; exitCode: number; signal: string };
} {
  const script = `
    import { runPipeline } from './src/pipeline/runner.ts';
    import { deliverSignal } from './src/processes/interrupt.ts';
    const done = [];
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    const when = ${JSON.stringify(signalDuring)};
    const steps = [
      { title: 'read', async run() { if (when === 'read') setTimeout(() => deliverSignal('SIGINT'), 20); await sleep(when === 'read' ? 3000 : 1); done.push('read'); } },
      { title: 'write', writes: true, async run() { if (when === 'write') setTimeout(() => deliverSignal('SIGINT'), 5); await sleep(100); done.push('write'); } },
      { title: 'complete', writes: true, completesWrites: true, async run() { done.push('complete'); } },
      { title: 'not applicable', writes: true, skip: () => 'not for this run', run() { done.push('never'); } },
      { title: 'later', writes: true, async run() { done.push('later'); } },
    ];
    const reports = [];
    const out = { done, reports };
    try {
      await runPipeline(steps, {}, { json: true, env: {}, reports, stopsCleanly: true });
    } catch (error) {
      out.error = error.toJSON();
    }
    process.stdout.write(JSON.stringify(out));
    process.exit(0);
  `;
  const text = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(text);
}

describe('runPipeline with stopsCleanly', () => {
  it('a signal during a writing step: it finishes, the step completing it runs, the rest is skipped', () => {
    const out = scenario('write');
    expect(out.done).toEqual(['read', 'write', 'complete']);
    expect(out.reports.map((r) => [r.title, r.status, r.reason ?? ''])).toEqual([
      ['read', 'done', ''],
      ['write', 'done', ''],
      ['complete', 'done', ''],
      ['not applicable', 'skipped', 'not for this run'],
      ['later', 'skipped', 'stopped by SIGINT'],
    ]);
    expect(out.error).toMatchObject({ code: 'INTERRUPTED', exitCode: 130, signal: 'SIGINT' });
  });

  it('a signal during a reading step: it is left at once, nothing is written', () => {
    const out = scenario('read');
    expect(out.done).toEqual([]); // not even 'read': it was left, not waited for
    expect(out.reports.map((r) => r.status)).toEqual(['skipped', 'skipped', 'skipped', 'skipped', 'skipped']);
    expect(out.reports[2]!.reason).toBe('stopped by SIGINT'); // no write ran: nothing to complete
    expect(out.error).toMatchObject({ code: 'INTERRUPTED', exitCode: 130 });
  });

  it('no signal: every step runs as usual', () => {
    const out = scenario('never');
    expect(out.done).toEqual(['read', 'write', 'complete', 'later']);
    expect(out.error).toBeUndefined();
  });
});
