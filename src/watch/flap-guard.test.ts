import { describe, expect, it } from 'vitest';
import type { ProbeResult } from '../verify/types.ts';
import { FlapGuard } from './flap-guard.ts';

const good = (version: string): ProbeResult => ({ name: 'worker', source: 'http://w/healthz', version });
const bad: ProbeResult = {
  name: 'worker',
  source: 'http://w/healthz',
  version: undefined,
  error: 'connection refused',
};

describe('FlapGuard: unreachable only after two failures in a row', () => {
  it('holds the last good reading over one failure, and lets the second through', () => {
    const guard = new FlapGuard();
    expect(guard.hold('a', [good('v1')])[0]!.version).toBe('v1');
    const held = guard.hold('a', [bad])[0]!;
    expect(held.version).toBe('v1');
    expect(held.error).toBeUndefined();
    expect(held.detail).toMatch(/held: the last probe failed once \(connection refused\)/);
    expect(guard.hold('a', [bad])[0]!.error).toBe('connection refused');
  });

  it('starts counting again after a success', () => {
    const guard = new FlapGuard();
    guard.hold('a', [good('v1')]);
    guard.hold('a', [bad]);
    guard.hold('a', [good('v2')]);
    expect(guard.hold('a', [bad])[0]!.version).toBe('v2');
  });

  it('never invents a reading: a first failure with nothing to hold stands', () => {
    expect(new FlapGuard().hold('a', [bad])[0]!.error).toBe('connection refused');
  });

  it('keeps deployments apart, and forgets the ones no longer watched', () => {
    const guard = new FlapGuard();
    guard.hold('a', [good('v1')]);
    expect(guard.hold('b', [bad])[0]!.error).toBeDefined();
    guard.keepOnly(new Set(['b']));
    expect(guard.hold('a', [bad])[0]!.error).toBeDefined();
  });

  it('holds a failure that names another URL than the success did (one reading per artifact)', () => {
    const guard = new FlapGuard();
    guard.hold('a', [{ name: 'web', source: 'http://w/version.json', version: 'v1' }]);
    const held = guard.hold('a', [
      { name: 'web', source: 'http://w/', version: undefined, error: 'HTTP 502' },
    ]);
    expect(held[0]!.version).toBe('v1');
  });
});
