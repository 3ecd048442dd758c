import { describe, expect, it } from 'vitest';
import { composeConfig, type OciImageConfig, rfc3339 } from './image-config.ts';

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
