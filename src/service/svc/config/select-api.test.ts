import { describe, expect, it } from 'vitest';
import { isReleaseError } from '../../../errors.ts';
import { normalizeBaseUrl, requireApi, selectApi, selectGateMode, selectTimeout } from './select-api.ts';

describe('selectApi', () => {
  const env = { SERVICE_API_URL: 'http://env.example/', HOME: '/home/x' };
  it('prefers --url, then SERVICE_API_URL, then the config file', () => {
    expect(selectApi('http://flag.example', env, { url: 'http://file.example' })).toEqual({
      baseUrl: 'http://flag.example',
      source: '--url',
    });
    expect(selectApi(undefined, env, { url: 'http://file.example' })).toEqual({
      baseUrl: 'http://env.example',
      source: 'SERVICE_API_URL',
    });
    expect(selectApi(undefined, { HOME: '/h' }, { url: 'http://file.example/base/' })).toEqual({
      baseUrl: 'http://file.example/base',
      source: 'config',
    });
  });
  it('names all three sources when none is set', () => {
    try {
      requireApi(undefined, { HOME: '/home/x' }, {});
      expect.unreachable();
    } catch (error) {
      expect(isReleaseError(error) && error.exitCode).toBe(2);
      expect(isReleaseError(error) && error.hint).toMatch(
        /--url.*SERVICE_API_URL.*svc config set-url.*\/home\/x\/\.config\/svc\/config\.json/,
      );
    }
  });
  it.each(['ftp://x', 'not a url', 'http://x/?q=1'])('refuses %s', (url) => {
    expect(() => normalizeBaseUrl(url, '--url')).toThrow(/--url/);
  });
});

describe('gate settings', () => {
  it('reads the gate mode from the environment before the config', () => {
    expect(selectGateMode({}, {})).toBe('hard');
    expect(selectGateMode({}, { gate: 'warn' })).toBe('warn');
    expect(selectGateMode({ SVC_VERSION_GATE: 'hard' }, { gate: 'warn' })).toBe('hard');
    expect(() => selectGateMode({ SVC_VERSION_GATE: 'off' }, {})).toThrow(/SVC_VERSION_GATE/);
  });
  it('reads the timeout', () => {
    expect(selectTimeout({})).toBe(3000);
    expect(selectTimeout({ SVC_VERSION_CHECK_TIMEOUT_MS: '250' })).toBe(250);
    expect(() => selectTimeout({ SVC_VERSION_CHECK_TIMEOUT_MS: '-1' })).toThrow(
      /SVC_VERSION_CHECK_TIMEOUT_MS/,
    );
  });
});
