import { describe, expect, it } from 'vitest';
import { formatImageRef, isImageOf, parseStoreImageRef, splitImageRef } from './image-ref.ts';

describe('splitImageRef', () => {
  it('reads the tag after the oci-layout scheme, not the scheme itself', () => {
    expect(splitImageRef('oci-layout:node')).toEqual({
      repository: 'oci-layout:node',
      tag: undefined,
      digest: undefined,
    });
    expect(splitImageRef('oci-layout:node:20').tag).toBe('20');
  });

  it('tells a registry port from a tag', () => {
    expect(splitImageRef('127.0.0.1:5000/acme/service-worker')).toEqual({
      repository: '127.0.0.1:5000/acme/service-worker',
      tag: undefined,
      digest: undefined,
    });
    expect(splitImageRef('127.0.0.1:5000/acme/service-worker:v1.2.3@sha256:ab')).toEqual({
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

describe('parseStoreImageRef', () => {
  it.each([
    ['oci-layout:.release/base/node:20', 'oci-layout:.release/base', 'node', '20'],
    ['oci-layout:/abs/dir/node', 'oci-layout:/abs/dir', 'node', 'latest'],
    ['oci-layout:node:20', 'oci-layout:.', 'node', '20'],
    ['127.0.0.1:5000/base/node:20', '127.0.0.1:5000', 'base/node', '20'],
    ['127.0.0.1:5000/base/node', '127.0.0.1:5000', 'base/node', 'latest'],
    ['localhost/node', 'localhost', 'node', 'latest'],
    [`reg.example.com/node@sha256:${'a'.repeat(64)}`, 'reg.example.com', 'node', `sha256:${'a'.repeat(64)}`],
  ])('%s', (text, store, repository, reference) => {
    expect(parseStoreImageRef(text)).toMatchObject({ store, repository, reference });
  });

  it.each([
    'node:20',
    'oci-layout:',
    'oci-layout:.release/',
    '127.0.0.1:5000/node:bad tag',
    'host:1/x@sha256:zz',
  ])('refuses %s with a usage error', (text) => {
    expect(() => parseStoreImageRef(text)).toThrow(
      expect.objectContaining({ code: 'IMAGE_REFERENCE_INVALID', exitCode: 2 }),
    );
  });

  it('formats tags and digests', () => {
    expect(formatImageRef('127.0.0.1:5000', 'a', 'v1')).toBe('127.0.0.1:5000/a:v1');
    expect(formatImageRef('h:1', 'a', `sha256:${'b'.repeat(64)}`)).toBe(`h:1/a@sha256:${'b'.repeat(64)}`);
  });
});
