import { describe, expect, it } from 'vitest';
import { createTimer, formatMs, timesBySubject } from './timings.ts';

describe('createTimer', () => {
  it('times each piece under its subject and step, a failed one too, and rethrows its error', async () => {
    let clock = 0;
    const timer = createTimer(() => clock);
    const value = await timer.time('api', 'layers', async () => {
      clock += 40;
      return 'layer';
    });
    expect(value).toBe('layer');
    const boom = new Error('boom');
    await expect(
      timer.time('web', 'build command', async () => {
        clock += 7;
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(timer.timings).toEqual([
      { subject: 'api', step: 'layers', ms: 40 },
      { subject: 'web', step: 'build command', ms: 7 },
    ]);
  });

  it('never records a negative duration from a clock that went back', async () => {
    const times = [100, 90];
    const timer = createTimer(() => times.shift()!);
    await timer.time('cli', 'sign', async () => undefined);
    expect(timer.timings[0]!.ms).toBe(0);
  });
});

describe('timesBySubject', () => {
  it('groups by subject in the given order, then as first seen, adding up repeated steps', () => {
    const grouped = timesBySubject(
      [
        { subject: 'base', step: 'check', ms: 2 },
        { subject: 'web', step: 'layers', ms: 5 },
        { subject: 'api', step: 'layers', ms: 3 },
        { subject: 'api', step: 'layers', ms: 4 },
        { subject: 'api', step: 'write', ms: 10 },
      ],
      ['api', 'worker', 'web'],
    );
    expect(grouped).toEqual([
      {
        name: 'api',
        ms: 17,
        steps: [
          { name: 'layers', ms: 7 },
          { name: 'write', ms: 10 },
        ],
      },
      // worker was configured but timed nothing (not built): left out.
      { name: 'web', ms: 5, steps: [{ name: 'layers', ms: 5 }] },
      { name: 'base', ms: 2, steps: [{ name: 'check', ms: 2 }] },
    ]);
  });
});

describe('formatMs', () => {
  it('prints milliseconds below a second and tenths of seconds from one up', () => {
    expect(formatMs(0)).toBe('0 ms');
    expect(formatMs(999)).toBe('999 ms');
    expect(formatMs(1000)).toBe('1.0 s');
    expect(formatMs(11_249)).toBe('11.2 s');
  });
});
