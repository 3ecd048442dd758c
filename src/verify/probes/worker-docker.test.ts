import { describe, expect, it } from 'vitest';
import { workerVersionOf } from './worker-docker.ts';

describe('workerVersionOf', () => {
  it('prefers SERVICE_VERSION, then the OCI label, then a version tag', () => {
    expect(workerVersionOf({ env: 'v2', label: 'v1', tag: 'v0' }).version).toBe('v2');
    expect(workerVersionOf({ label: '1.0.0', tag: 'v0.9.0' })).toEqual({
      version: '1.0.0',
      from: 'label org.opencontainers.image.version',
    });
    expect(workerVersionOf({ tag: 'v0.9.0' }).version).toBe('v0.9.0');
  });

  it('says unknown when only a floating tag is there', () => {
    expect(workerVersionOf({ tag: 'latest' }).version).toBe('unknown');
  });
});
