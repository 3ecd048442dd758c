import { describe, expect, it } from 'vitest';
import { failureReason } from './failure-reason.ts';
import { loopRounds, nextStart, parseDuration } from './watch-loop.ts';

describe('watch loop helpers', () => {
  it('reads durations and refuses others', () => {
    expect([parseDuration('15s'), parseDuration('500ms'), parseDuration('1m'), parseDuration('2')]).toEqual([
      15_000, 500, 60_000, 2_000,
    ]);
    expect(parseDuration('soon')).toBeUndefined();
    expect(parseDuration('-1s')).toBeUndefined();
  });

  it('moves each start by at most the jitter', () => {
    expect(nextStart(10_000, 0.1, () => 0)).toBe(9_000);
    expect(nextStart(10_000, 0.1, () => 1)).toBe(11_000);
    expect(nextStart(10_000, 0.1, () => 0.5)).toBe(10_000);
  });

  it('finishes the round under way when stopped, and starts no other', async () => {
    const stop = new AbortController();
    let rounds = 0;
    await loopRounds(
      async () => {
        rounds++;
        if (rounds === 2) stop.abort();
        await new Promise((r) => setTimeout(r, 5));
      },
      { intervalMs: 1, stop: stop.signal },
    );
    expect(rounds).toBe(2);
  });

  it('classifies probe errors into a fixed set of reasons', () => {
    expect(failureReason('no answer within 5000 ms')).toBe('timeout');
    expect(failureReason('connection refused')).toBe('refused');
    expect(failureReason('response body is larger than the 65536-byte limit')).toBe('too_large');
    expect(failureReason('HTTP 502')).toBe('http_status');
    expect(failureReason('something odd')).toBe('other');
  });
});
