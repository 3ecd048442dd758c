import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ImageArtifactConfig } from '../config/artifacts-schema.ts';
import { createLayer } from '../oci-image/layer.ts';
import { putImage } from '../oci-image/write-image.ts';
import { LayoutStore } from '../registry/layout-store.ts';
import { type ImageStore, MEDIA_TYPES } from '../registry/store.ts';
import { imageReversionOfRc } from './reversion-image.ts';

// How a release re-versions an rc image's baked files, chosen from the image alone and the
// artifact's config: nothing for a build of the release's own version, a rewrite where no
// rebuild can run, proven and refused when a form of the rc's version would be left.

const dir = mkdtempSync(join(tmpdir(), 'sr-reversion-image-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const store: ImageStore = new LayoutStore(dir, () => {});

async function rcImage(repository: string, version: string, appJs: string, architecture = 'amd64') {
  const layer = await createLayer([{ type: 'file', path: '/srv/web/app.js', content: appJs }], 0);
  return putImage({
    store,
    repository,
    tags: [`${version}-${architecture}`],
    config: {
      architecture,
      os: 'linux',
      config: {
        Labels: {
          'org.opencontainers.image.version': version,
          'org.service-release.version-layer.formats': '/srv/web/app.js=rebuild',
        },
      },
      rootfs: { type: 'layers', diff_ids: [layer.diffId] },
    },
    layers: [layer],
  });
}

const web = {
  name: 'web',
  kind: 'image',
  image: 'web',
  files: [{ from: 'dist', to: '/srv/web' }],
} as unknown as ImageArtifactConfig;
const input = (repository: string, version: string) => ({
  store,
  repository,
  artifact: web,
  projectDir: dir,
  rcTag: undefined,
  version,
  env: {},
  progress: () => {},
});

describe('imageReversionOfRc', () => {
  it('leaves an image built as the release alone, and rewrites where no rebuild can run', async () => {
    const same = await rcImage('same', 'v1.0.0', "export const V = 'v1.0.0';\n");
    const rc = (await store.getManifest('same', same.digest))!;
    expect(await imageReversionOfRc({ ...input('same', 'v1.0.0'), rc })).toBeUndefined();

    const made = await rcImage(
      'rw',
      'v1.1.0-rc.1',
      "export const V = 'v1.1.0-rc.1'; // 1.1.0-rc.1, 1.1.0rc1\n",
    );
    const reversion = (await imageReversionOfRc({
      ...input('rw', 'v1.1.0'),
      rc: (await store.getManifest('rw', made.digest))!,
    }))!;
    expect(reversion.strategy).toBe('rewrite');
    expect(reversion.reason).toMatch(/^no build command here can rebuild it/);
    const out = await reversion.file(
      '/srv/web/app.js',
      Buffer.from("export const V = 'v1.1.0-rc.1'; // 1.1.0-rc.1, 1.1.0rc1\n"),
    );
    expect(out.toString()).toBe("export const V = 'v1.1.0'; // 1.1.0, 1.1.0\n");
    expect(reversion.comparison()).toMatchObject({ equal: true, versionOnly: [{ path: '/srv/web/app.js' }] });
  });

  it('rewrites each child of a two-platform index, even with a build command', async () => {
    const amd = await rcImage('idx', 'v2.0.0-rc.1', "'v2.0.0-rc.1'\n", 'amd64');
    const arm = await rcImage('idx', 'v2.0.0-rc.1', "'v2.0.0-rc.1'\n", 'arm64');
    const child = (d: { digest: string; size: number }, architecture: string) => ({
      mediaType: MEDIA_TYPES.ociManifest,
      digest: d.digest,
      size: d.size,
      platform: { os: 'linux', architecture },
    });
    const index = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MEDIA_TYPES.ociIndex,
        manifests: [child(amd, 'amd64'), child(arm, 'arm64')],
      }),
    );
    await store.putManifest('idx', 'v2.0.0-rc.1', index, MEDIA_TYPES.ociIndex);
    const reversion = (await imageReversionOfRc({
      ...input('idx', 'v2.0.0'),
      artifact: { ...web, build: { command: ['sh', 'build.sh'] } },
      rcTag: 'v2.0.0-rc.1',
      rc: (await store.getManifest('idx', 'v2.0.0-rc.1'))!,
    }))!;
    expect(reversion).toMatchObject({
      strategy: 'rewrite',
      reason: expect.stringMatching(/index of 2 platforms/),
    });
  });

  it('refuses a rewrite that would leave a form of the rc version glued to other text', async () => {
    const made = await rcImage('glued', 'v3.0.0-rc.1', "'v3.0.0-rc.1x'\n");
    const reversion = (await imageReversionOfRc({
      ...input('glued', 'v3.0.0'),
      rc: (await store.getManifest('glued', made.digest))!,
    }))!;
    await expect(reversion.file('/srv/web/app.js', Buffer.from("'v3.0.0-rc.1x'\n"))).rejects.toMatchObject({
      code: 'REWRITE_INCOMPLETE',
      exitCode: 1,
    });
  });
});
