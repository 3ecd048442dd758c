import { describe, expect, it } from 'vitest';
import type { OciImageConfig } from '../oci-image/image-config.ts';
import { restampConfig, versionOfConfig } from './restamp-config.ts';

const RC_DIGEST = `sha256:${'a'.repeat(64)}`;
const config = (): OciImageConfig => ({
  created: '2026-01-01T00:00:00Z',
  architecture: 'amd64',
  os: 'linux',
  config: {
    User: '65534:65534',
    Env: ['PATH=/usr/bin', 'SERVICE_VERSION=v1.0.0-rc.1', 'PORT=8080', 'SERVICE_VERSION_NOTE=keep'],
    Labels: {
      'org.opencontainers.image.version': 'v1.0.0-rc.1',
      'org.opencontainers.image.title': 'service-api',
      'org.service-release.version-layer.files': '/app/service-cli.tar.gz',
      'org.service-release.version-layer.digest': `sha256:${'1'.repeat(64)}`,
    },
  },
  rootfs: { type: 'layers', diff_ids: ['sha256:base', 'sha256:code', 'sha256:version'] },
  history: [{ created_by: 'base' }, { created_by: 'code' }, { created_by: 'version' }],
});

describe('restampConfig', () => {
  it('changes the version env and label, names the rc, and replaces the version layer diff ID', () => {
    const out = restampConfig(config(), {
      version: 'v1.0.0',
      from: RC_DIGEST,
      versionLayer: { digest: `sha256:${'2'.repeat(64)}`, diffId: 'sha256:new' },
    });
    expect(out.config?.Env).toEqual([
      'PATH=/usr/bin',
      'SERVICE_VERSION=v1.0.0',
      'PORT=8080',
      'SERVICE_VERSION_NOTE=keep',
    ]);
    expect(out.config?.Labels).toEqual({
      'org.opencontainers.image.title': 'service-api',
      'org.opencontainers.image.version': 'v1.0.0',
      'org.service-release.restamped-from': RC_DIGEST,
      'org.service-release.version-layer.digest': `sha256:${'2'.repeat(64)}`,
      'org.service-release.version-layer.files': '/app/service-cli.tar.gz',
    });
    expect(out.rootfs.diff_ids).toEqual(['sha256:base', 'sha256:code', 'sha256:new']);
    expect({ ...out, config: undefined, rootfs: undefined }).toEqual({
      ...config(),
      config: undefined,
      rootfs: undefined,
    });
    expect(versionOfConfig(out)).toBe('v1.0.0');
  });

  it('without a version layer only the env and labels change; it adds no variable', () => {
    const input = config();
    input.config!.Env = ['SERVICE_CLIENT_VERSION=v2.0.0-rc.3'];
    const out = restampConfig(input, { version: 'v2.0.0', from: RC_DIGEST });
    expect(out.config?.Env).toEqual(['SERVICE_CLIENT_VERSION=v2.0.0']);
    expect(out.rootfs.diff_ids).toEqual(config().rootfs.diff_ids);
    expect(restampConfig(out, { version: 'v2.0.0', from: RC_DIGEST })).toEqual(out);
  });

  it('reads the version from the env when there is no label, and none when neither', () => {
    const input = config();
    delete input.config!.Labels!['org.opencontainers.image.version'];
    expect(versionOfConfig(input)).toBe('v1.0.0-rc.1');
    input.config!.Env = [];
    expect(versionOfConfig(input)).toBeUndefined();
  });

  it("re-writes the service's own version variables its label names, and no other", () => {
    const input = config();
    input.config!.Env = [
      'ACME_VERSION=v1.3.0-rc.1',
      'SERVICE_VERSION=v1.3.0-rc.1',
      'OTHER_VERSION=v1.3.0-rc.1',
    ];
    input.config!.Labels = { ...input.config!.Labels, 'org.service-release.version-env': 'ACME_VERSION' };
    const out = restampConfig(input, { version: 'v1.3.0', from: RC_DIGEST });
    expect(out.config?.Env).toEqual([
      'ACME_VERSION=v1.3.0',
      'SERVICE_VERSION=v1.3.0',
      'OTHER_VERSION=v1.3.0-rc.1',
    ]);
    // A label of hostile names (an image from elsewhere) names nothing but variable names.
    input.config!.Labels['org.service-release.version-env'] = 'PATH=x,,OTHER_VERSION';
    expect(restampConfig(input, { version: 'v1.3.0', from: RC_DIGEST }).config?.Env).toEqual([
      'ACME_VERSION=v1.3.0-rc.1',
      'SERVICE_VERSION=v1.3.0',
      'OTHER_VERSION=v1.3.0',
    ]);
  });
});
