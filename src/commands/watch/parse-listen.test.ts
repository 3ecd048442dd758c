import { describe, expect, it } from 'vitest';
import { parseListen } from './run-watch.ts';

describe('release watch --listen', () => {
  it('reads --listen addresses', () => {
    expect(parseListen('127.0.0.1:9464')).toEqual({ host: '127.0.0.1', port: 9464 });
    expect(parseListen('[::1]:0')).toEqual({ host: '::1', port: 0 });
    expect(parseListen(':9464')).toEqual({ host: '0.0.0.0', port: 9464 });
    expect(() => parseListen('9464')).toThrow(/not addr:port/);
    expect(() => parseListen('h:70000')).toThrow(/not addr:port/);
  });
});
