import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { processAlive } from '../processes/process-alive.ts';
import { currentHolder, holderGone, parseHolder } from './holder.ts';

const holder = { ...currentHolder(10_000, 't'), host: 'build-1', pid: 42, heartbeat: 1_000 };

describe('holderGone', () => {
  it('a dead pid on this host is gone at once, whatever its heartbeat', () => {
    expect(holderGone(holder, { now: 1_001, host: 'build-1', alive: false })).toBe(
      'pid 42 on this host is no longer running',
    );
  });
  it('a live pid on this host holds while it beats', () => {
    expect(holderGone(holder, { now: 9_000, host: 'build-1', alive: true })).toBe(false);
  });
  it('a live pid silent past its deadline is gone (stopped, or a reused pid)', () => {
    expect(holderGone(holder, { now: 11_001, host: 'build-1', alive: true })).toMatch(
      /no heartbeat .* for 10 s/,
    );
  });
  it('on another host only the heartbeat decides', () => {
    expect(holderGone(holder, { now: 10_999, host: 'build-2' })).toBe(false);
    expect(holderGone(holder, { now: 11_001, host: 'build-2' })).toMatch(/on build-1/);
  });
});

describe('currentHolder', () => {
  it('names this host and this process, with a start time that proves it alive', () => {
    const me = currentHolder(1, 't');
    expect(me.host).toBe(hostname());
    expect(me.pid).toBe(process.pid);
    expect(processAlive(me.pid, me.procStart)).toBe(true);
  });
});

describe('parseHolder', () => {
  it('parses only holder records', () => {
    expect(parseHolder(JSON.stringify(holder))).toEqual(holder);
    expect(parseHolder('{"pid": 1}')).toBeUndefined();
    expect(parseHolder('')).toBeUndefined();
  });
});
