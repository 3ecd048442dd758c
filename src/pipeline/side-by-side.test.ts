import { describe, expect, it } from 'vitest';
import { runPipeline } from './runner.ts';
import { sideBySide } from './side-by-side.ts';
import type { Step } from './step.ts';

interface Ctx {
  log: string[];
}

/** A step that logs its start, waits until `release` says so, then logs its end. */
function gated(title: string, gate: Promise<void>, extra: Partial<Step<Ctx>> = {}): Step<Ctx> {
  return {
    title,
    async run(ctx) {
      ctx.log.push(`${title} start`);
      await gate;
      ctx.log.push(`${title} end`);
    },
    ...extra,
  };
}

describe('sideBySide', () => {
  it('runs the lanes at once and each lane in order', async () => {
    let open = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const ctx: Ctx = { log: [] };
    const step = sideBySide('both', [
      [gated('base', gate)],
      [gated('cli', Promise.resolve()), gated('commands', Promise.resolve())],
    ]);
    const run = runPipeline([step], ctx, { json: true, env: {} });
    // The second lane finishes both its steps, in order, while the first is still waiting.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ctx.log).toEqual(['base start', 'cli start', 'cli end', 'commands start', 'commands end']);
    open();
    const reports = await run;
    expect(ctx.log.at(-1)).toBe('base end');
    expect(reports).toMatchObject([{ title: 'both', status: 'done' }]);
  });

  it('waits for every lane before it fails with the first failure, in lane order', async () => {
    const boom = new Error('boom');
    const ctx: Ctx = { log: [] };
    const failing: Step<Ctx> = {
      title: 'fail',
      run: () => {
        throw boom;
      },
    };
    const slow = gated('slow', new Promise((resolve) => setTimeout(resolve, 20)));
    const next = gated('after the failure', Promise.resolve());
    await expect(
      runPipeline([sideBySide('both', [[slow], [failing, next]])], ctx, { json: true, env: {} }),
    ).rejects.toBe(boom);
    // The failed lane stopped; the other one ran to its end before the error came out.
    expect(ctx.log).toEqual(['slow start', 'slow end']);
  });

  it('starts no further step in any lane once one has failed', async () => {
    const ctx: Ctx = { log: [] };
    const failing: Step<Ctx> = {
      title: 'base',
      run: async () => {
        throw new Error('no base');
      },
    };
    // Under way when the base fails: it finishes; the step after it never starts.
    const command = gated('command', new Promise((resolve) => setTimeout(resolve, 20)));
    const next = gated('next command', Promise.resolve());
    const run = runPipeline([sideBySide('both', [[failing], [command, next]])], ctx, { json: true, env: {} });
    await expect(run).rejects.toThrow('no base');
    expect(ctx.log).toEqual(['command start', 'command end']);
  });

  it('passes over a step that does not apply, and skips when none does; writes if any inner step writes', async () => {
    const ctx: Ctx = { log: [] };
    const no = (title: string): Step<Ctx> => ({ ...gated(title, Promise.resolve()), skip: () => 'not here' });
    const writing = { ...gated('write', Promise.resolve()), writes: true as const };
    expect(sideBySide('w', [[no('a')], [writing]]).writes).toBe(true);
    expect(sideBySide('r', [[no('a')], [gated('read', Promise.resolve())]]).writes).toBeUndefined();
    const reports = await runPipeline([sideBySide('some', [[no('a')], [writing]])], ctx, {
      json: true,
      env: {},
    });
    expect(ctx.log).toEqual(['write start', 'write end']);
    expect(reports[0]).toMatchObject({ status: 'done' });
    const none = await runPipeline([sideBySide('none', [[no('a')], [no('b')]])], ctx, {
      json: true,
      env: {},
    });
    expect(none[0]).toMatchObject({ status: 'skipped', reason: 'not here' });
  });
});
