import { describe, expect, it } from 'vitest';
import { isImageOf, parseImageRef } from './image-ref.ts';
import { workerVersionOf } from './probes/worker-docker.ts';

describe('parseImageRef', () => {
  it('tells a registry port from a tag', () => {
    expect(parseImageRef('127.0.0.1:5000/acme/service-worker')).toEqual({
      repository: '127.0.0.1:5000/acme/service-worker',
      tag: undefined,
      digest: undefined,
    });
    expect(parseImageRef('127.0.0.1:5000/acme/service-worker:v1.2.3@sha256:ab')).toEqual({
      repository: '127.0.0.1:5000/acme/service-worker',
      tag: 'v1.2.3',
      digest: 'sha256:ab',
    });
  });
});

describe('isImageOf', () => {
  it('matches the repository wherever it was pulled from, and nothing that only resembles it', () => {
    expect(isImageOf('service-worker:v1', 'service-worker')).toBe(true);
    expect(isImageOf('docker.io/library/service-worker', 'service-worker')).toBe(true);
    expect(isImageOf('127.0.0.1:5000/acme/service-worker@sha256:ab', 'service-worker')).toBe(true);
    expect(isImageOf('service-worker-old:v1', 'service-worker')).toBe(false);
    expect(isImageOf('acme/not-service-worker:v1', 'service-worker')).toBe(false);
    expect(isImageOf('service-api:v1', 'service-worker')).toBe(false);
  });
});

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
