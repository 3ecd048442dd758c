import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderOverride } from './compose-override.ts';

describe('renderOverride', () => {
  it('pins each service image and keeps the user file version', () => {
    const text = renderOverride({
      tag: 'v2.0.0',
      version: '3.8',
      pins: { worker: 'r/acme/service-worker:v2.0.0@sha256:bb', api: 'r/acme/service-api:v2.0.0@sha256:aa' },
    });
    expect(parse(text)).toEqual({
      version: '3.8',
      services: {
        api: { image: 'r/acme/service-api:v2.0.0@sha256:aa' },
        worker: { image: 'r/acme/service-worker:v2.0.0@sha256:bb' },
      },
    });
    expect(text).toMatch(/^# Written by `release upgrade --to v2.0.0`/);
  });

  it('writes no version when the user file has none', () => {
    expect(parse(renderOverride({ tag: 'v1.0.0', pins: { a: 'x' } }))).toEqual({
      services: { a: { image: 'x' } },
    });
  });
});
