import { describe, expect, it } from 'vitest';
import { judgeVersions } from './version-gate.ts';

const base = { tag: 'v2.0.0', wrongSince: undefined, now: 10_000 };

describe('judgeVersions', () => {
  it('reached when every reading is the tag, with or without the v', () => {
    expect(judgeVersions({ ...base, seen: ['v2.0.0', '2.0.0'] })).toEqual({ status: 'reached' });
  });

  it('waits while nothing is readable, whatever the time', () => {
    expect(judgeVersions({ ...base, seen: [], wrongSince: 0 })).toMatchObject({ status: 'waiting' });
  });

  it('a wrong version is final only after the grace', () => {
    expect(judgeVersions({ ...base, seen: ['v1.0.0'] })).toEqual({
      status: 'waiting',
      reason: 'reports v1.0.0, not v2.0.0',
      wrongSince: 10_000,
    });
    expect(judgeVersions({ ...base, seen: ['v2.0.0', 'unknown'], wrongSince: 7_000 })).toEqual({
      status: 'wrong',
      reason: 'reports unknown, not v2.0.0',
    });
    expect(judgeVersions({ ...base, seen: ['v1.0.0'], wrongSince: 9_000, graceMs: 500 })).toMatchObject({
      status: 'wrong',
    });
  });
});
