import { describe, expect, it } from 'vitest';
import { imageArtifactSchema } from '../config/artifacts-schema.ts';
import {
  formatImageRef,
  isImageOf,
  parseBaseImageRef,
  parseStoreImageRef,
  splitImageRef,
} from './image-ref.ts';

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

  it("takes a repository configured by Docker Hub's full name for its short name too", () => {
    // netbox-docker writes docker.io/netboxcommunity/netbox; the docker CLI writes a service's image short.
    expect(isImageOf('netboxcommunity/netbox:v4.1-3.0.2', 'docker.io/netboxcommunity/netbox')).toBe(true);
    expect(isImageOf('docker.io/netboxcommunity/netbox:v4.1', 'docker.io/netboxcommunity/netbox')).toBe(true);
    expect(isImageOf('nginx:1.27', 'docker.io/library/nginx')).toBe(true);
    expect(isImageOf('nginx:1.27', 'index.docker.io/library/nginx')).toBe(true);
    expect(isImageOf('netboxcommunity/netbox-old:v4', 'docker.io/netboxcommunity/netbox')).toBe(false);
    expect(isImageOf('acme/nginx:1', 'docker.io/library/nginx')).toBe(false);
    expect(isImageOf('ghcr.io/netboxcommunity/netbox:v4', 'docker.io/netboxcommunity/netbox')).toBe(false);
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

describe('parseBaseImageRef: a base named as Docker names it', () => {
  const digest = `sha256:${'b'.repeat(64)}`;
  // The normalisation Docker documents (docker image pull, "Image and tag names"): Docker Hub's
  // API host, library/ for official images, latest when no tag.
  it.each([
    ['python', 'registry-1.docker.io', 'library/python', 'latest'],
    ['python:3.14-slim', 'registry-1.docker.io', 'library/python', '3.14-slim'],
    ['library/python', 'registry-1.docker.io', 'library/python', 'latest'],
    ['bitnami/redis:7.2', 'registry-1.docker.io', 'bitnami/redis', '7.2'],
    ['docker.io/library/python:3.14-slim', 'registry-1.docker.io', 'library/python', '3.14-slim'],
    ['docker.io/python', 'registry-1.docker.io', 'library/python', 'latest'],
    ['index.docker.io/library/node:22', 'registry-1.docker.io', 'library/node', '22'],
    [`python@${digest}`, 'registry-1.docker.io', 'library/python', digest],
    // As getsentry/self-hosted pins one in its compose file: the tag is for people, the digest wins.
    [`chrislusf/seaweedfs:4.40_large_disk@${digest}`, 'registry-1.docker.io', 'chrislusf/seaweedfs', digest],
    ['ghcr.io/a/b:1', 'ghcr.io', 'a/b', '1'],
    ['localhost:5000/x', 'localhost:5000', 'x', 'latest'],
    ['localhost/x:2', 'localhost', 'x', '2'],
    ['127.0.0.1:5000/base/node:20', '127.0.0.1:5000', 'base/node', '20'],
    ['oci-layout:.release/base/node:20', 'oci-layout:.release/base', 'node', '20'],
    ['oci-archive:bases/python.tar', 'oci-archive:bases/python.tar', '', ''],
    ['oci-archive:/abs/python.tar:3.14-slim', 'oci-archive:/abs/python.tar', '', '3.14-slim'],
    ['docker-archive:python-save.tar', 'docker-archive:python-save.tar', '', ''],
  ])('%s', (text, store, repository, reference) => {
    expect(parseBaseImageRef(text)).toMatchObject({ store, repository, reference, text });
  });

  it('the config takes every form it resolves, a tag and digest together included', () => {
    for (const base of ['python:3.14-slim', 'docker.io/valkey/valkey:8.0-alpine', `seaweedfs:4.40@${digest}`])
      expect(imageArtifactSchema.safeParse({ base }).success, base).toBe(true);
    expect(imageArtifactSchema.safeParse({ base: 'node 20' }).success).toBe(false);
  });

  it.each(['Python', 'python:bad tag', 'ghcr.io/A/b', 'oci-archive:'])(
    'refuses %s with a usage error',
    (text) => {
      expect(() => parseBaseImageRef(text)).toThrow(
        expect.objectContaining({ code: 'IMAGE_REFERENCE_INVALID' }),
      );
    },
  );
});
