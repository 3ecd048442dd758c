import { describe, expect, it } from 'vitest';
import type { Step } from '../../pipeline/step.ts';
import type { RehearseContext } from './rehearse-context.ts';
import { NOT_STARTED, rehearseLanes } from './rehearse-lanes.ts';

const context = () => ({ laneReports: {}, notes: {} }) as unknown as RehearseContext;
const io = { progress: () => {} };

/** A step that logs its start and end, and finishes when told. */
function step(title: string, log: string[], gate: Promise<void> = Promise.resolve(), fails = false) {
  return {
    title,
    async run() {
      log.push(`start ${title}`);
      await gate;
      log.push(`end ${title}`);
      if (fails) throw new Error(`${title} failed`);
    },
  } satisfies Step<RehearseContext>;
}

describe('rehearseLanes', () => {
  it('runs the lanes at once, each in order, and reports every step with its lane', async () => {
    const log: string[] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const ctx = context();
    const lanes = rehearseLanes('both', [
      [step('a1', log, slow), step('a2', log)],
      [
        step('b1', log),
        step(
          'b2',
          log,
          Promise.resolve().then(() => release()),
        ),
      ],
    ]);
    await lanes.run(ctx, io);
    // b1 and b2 ran while a1 was still under way: a1 ends only when b2 lets it.
    expect(log.indexOf('end b1')).toBeLessThan(log.indexOf('end a1'));
    expect(log.indexOf('start a2')).toBeGreaterThan(log.indexOf('end a1'));
    expect(ctx.laneReports['both']!.map((lane) => lane.map((r) => [r.title, r.status, r.lane]))).toEqual([
      [
        ['a1', 'done', 1],
        ['a2', 'done', 1],
      ],
      [
        ['b1', 'done', 2],
        ['b2', 'done', 2],
      ],
    ]);
  });

  it('after a failure no lane starts another step, the step under way is waited for, and the failure is rethrown', async () => {
    const log: string[] = [];
    let finishB1!: () => void;
    const b1Gate = new Promise<void>((resolve) => {
      finishB1 = resolve;
    });
    const ctx = context();
    const lanes = rehearseLanes('both', [
      [step('a1', log, Promise.resolve(), true), step('a2', log)],
      [step('b1', log, b1Gate), step('b2', log)],
    ]);
    const run = lanes.run(ctx, io);
    await new Promise((resolve) => setTimeout(resolve, 10));
    finishB1();
    await expect(run).rejects.toThrow('a1 failed');
    expect(log).toEqual(['start a1', 'start b1', 'end a1', 'end b1']);
    expect(ctx.laneReports['both']!.flat().map((r) => [r.title, r.status, r.reason])).toEqual([
      ['a1', 'failed', 'a1 failed'],
      ['a2', 'skipped', NOT_STARTED],
      ['b1', 'done', undefined],
      ['b2', 'skipped', NOT_STARTED],
    ]);
  });
});
