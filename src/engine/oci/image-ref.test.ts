import { describe, expect, it } from 'vitest';
import { composeConfig, type OciImageConfig, rfc3339 } from './image-config.ts';
import { formatImageRef, parseImageRef } from './image-ref.ts';

describe('parseImageRef', () => {
  it.each([
    ['oci-layout:.release/base/node:20', 'oci-layout:.release/base', 'node', '20'],
    ['oci-layout:/abs/dir/node', 'oci-layout:/abs/dir', 'node', 'latest'],
    ['oci-layout:node:20', 'oci-layout:.', 'node', '20'],
    ['127.0.0.1:5000/base/node:20', '127.0.0.1:5000', 'base/node', '20'],
    ['127.0.0.1:5000/base/node', '127.0.0.1:5000', 'base/node', 'latest'],
    ['localhost/node', 'localhost', 'node', 'latest'],
    [`reg.example.com/node@sha256:${'a'.repeat(64)}`, 'reg.example.com', 'node', `sha256:${'a'.repeat(64)}`],
  ])('%s', (text, store, repository, reference) => {
    expect(parseImageRef(text)).toMatchObject({ store, repository, reference });
  });

  it.each([
    'node:20',
    'oci-layout:',
    'oci-layout:.release/',
    '127.0.0.1:5000/node:bad tag',
    'host:1/x@sha256:zz',
  ])('refuses %s with a usage error', (text) => {
    expect(() => parseImageRef(text)).toThrow(
      expect.objectContaining({ code: 'IMAGE_REFERENCE_INVALID', exitCode: 2 }),
    );
  });

  it('formats tags and digests', () => {
    expect(formatImageRef('127.0.0.1:5000', 'a', 'v1')).toBe('127.0.0.1:5000/a:v1');
    expect(formatImageRef('h:1', 'a', `sha256:${'b'.repeat(64)}`)).toBe(`h:1/a@sha256:${'b'.repeat(64)}`);
  });
});

describe('composeConfig', () => {
  const base: OciImageConfig = {
    architecture: 'amd64',
    os: 'linux',
    config: { Env: ['PATH=/bin', 'SERVICE_VERSION=old'], Entrypoint: ['/node'], Labels: { keep: 'me' } },
    rootfs: { type: 'layers', diff_ids: ['sha256:base'] },
    history: [{ created_by: 'base' }],
  };

  it('keeps the platform, overrides env by name, appends layers and history', () => {
    const config = composeConfig(
      base,
      {
        env: { SERVICE_VERSION: 'v1.2.3', PORT: '8080' },
        cmd: ['/app/main.mjs'],
        workingDir: '/app',
        exposedPorts: ['8080'],
        labels: { 'org.opencontainers.image.version': 'v1.2.3' },
        created: rfc3339(1_700_000_000),
        createdBy: 'COPY api',
      },
      ['sha256:new'],
    );
    expect(config.architecture).toBe('amd64');
    expect(config.created).toBe('2023-11-14T22:13:20Z');
    expect(config.config?.Env).toEqual(['PATH=/bin', 'SERVICE_VERSION=v1.2.3', 'PORT=8080']);
    expect(config.config?.Entrypoint).toEqual(['/node']);
    expect(config.config?.Cmd).toEqual(['/app/main.mjs']);
    expect(config.config?.ExposedPorts).toEqual({ '8080/tcp': {} });
    expect(config.config?.Labels).toEqual({ keep: 'me', 'org.opencontainers.image.version': 'v1.2.3' });
    expect(config.rootfs.diff_ids).toEqual(['sha256:base', 'sha256:new']);
    expect(config.history?.at(-1)).toEqual({ created: '2023-11-14T22:13:20Z', created_by: 'COPY api' });
  });
});
