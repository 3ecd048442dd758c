import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyImage } from '../../src/registry/copy-image.ts';
import { LayoutStore } from '../../src/registry/layout-store.ts';
import { openStore } from '../../src/registry/open-store.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import type { ImageStore } from '../../src/registry/store.ts';
import { makeImage, makeIndex, pushImage, pushIndex } from '../helpers/make-image.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';

let dir: string;
let store: ImageStore;
const skopeo = (...args: string[]) => execFileSync('skopeo', args, { encoding: 'utf8', timeout: 30_000 });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sr-layout-'));
  store = openStore('oci-layout:oci', { cwd: dir, env: {} });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('LayoutStore', () => {
  it('opens oci-layout:<dir> relative to cwd', () => {
    // openStore wraps the layout in the store that recovers interrupted promotions first.
    expect(store.name).toBe(`oci-layout:${join(dir, 'oci')}`);
    expect(store.name).toBe(new LayoutStore(join(dir, 'oci')).name);
  });

  it('writes one OCI layout per repository that skopeo reads by tag', async () => {
    const image = makeImage({ architecture: 'arm64' });
    const digest = await pushImage(store, 'service-api', image, 'v1.0.0');
    expect(readFileSync(join(dir, 'oci', 'service-api', 'oci-layout'), 'utf8')).toContain(
      '"imageLayoutVersion":"1.0.0"',
    );
    const inspected = JSON.parse(skopeo('inspect', `oci:${join(dir, 'oci', 'service-api')}:v1.0.0`));
    expect(inspected.Digest).toBe(digest);
    expect(inspected.Architecture).toBe('arm64');
    expect(await store.listTags('service-api')).toEqual(['v1.0.0']);
    expect((await store.resolve('service-api', 'v1.0.0'))?.digest).toBe(digest);
    expect((await store.resolve('service-api', digest))?.mediaType).toBe(
      'application/vnd.oci.image.manifest.v1+json',
    );
  });

  it('keeps index.json whole under concurrent tag writes, and deletes tags', async () => {
    const image = makeImage();
    await pushImage(store, 'service-web', image);
    const tags = Array.from({ length: 20 }, (_, i) => `t${i}`);
    await Promise.all(
      tags.map((t) => store.putManifest('service-web', t, image.manifest, image.descriptor.mediaType)),
    );
    expect((await store.listTags('service-web')).sort()).toEqual([...tags].sort());
    await store.deleteTag!('service-web', 't3');
    expect(await store.listTags('service-web')).not.toContain('t3');
    expect(
      readdirSync(join(dir, 'oci', 'service-web')).filter((f) => f.includes('.tmp') || f.endsWith('.lock')),
    ).toEqual([]);
  });

  it('detects a blob changed on disk and refuses bad names', async () => {
    const image = makeImage();
    await pushImage(store, 'service-worker', image, 'v1');
    const layer = image.blobs[1]!.digest;
    writeFileSync(join(dir, 'oci', 'service-worker', 'blobs', 'sha256', layer.slice(7)), 'tampered');
    await expect(store.getBlob('service-worker', layer)).rejects.toMatchObject({ code: 'LAYOUT_CORRUPT' });
    await expect(store.listTags('../escape')).rejects.toMatchObject({ code: 'REPOSITORY_INVALID' });
    await expect(store.putManifest('service-worker', 'bad tag', image.manifest, 'x')).rejects.toMatchObject({
      code: 'TAG_INVALID',
    });
  });

  describe('copies to and from a registry', () => {
    let registry: RunningRegistry;
    beforeAll(async () => {
      registry = await startRegistry();
    });
    afterAll(async () => registry?.stop());

    it('copies a multi-architecture index layout -> registry -> layout with the same digest', async () => {
      const index = makeIndex([makeImage({ architecture: 'amd64' }), makeImage({ architecture: 'arm64' })]);
      await pushIndex(store, 'service-multi', index, 'v2.0.0');
      const remote = new RegistryStore({ registry: `${registry.host}/acme`, env: {} });
      await copyImage(store, 'service-multi', 'v2.0.0', remote, 'service-multi', 'v2.0.0');
      const raw = skopeo(
        'inspect',
        '--raw',
        '--tls-verify=false',
        `docker://${registry.host}/acme/service-multi:v2.0.0`,
      );
      expect(Buffer.from(raw).equals(Buffer.from(index.manifest))).toBe(true);

      const back = new LayoutStore(join(dir, 'back'));
      const copied = await copyImage(remote, 'service-multi', 'v2.0.0', back, 'service-multi', 'v2.0.0');
      expect(copied.descriptor.digest).toBe(index.digest);
      expect(copied.blobs.copied).toBe(4);
      const inspected = JSON.parse(
        skopeo('inspect', '--override-arch', 'arm64', `oci:${join(dir, 'back', 'service-multi')}:v2.0.0`),
      );
      expect(inspected.Architecture).toBe('arm64');
      // skopeo reports the digest of what the tag names: the index, unchanged by two copies.
      expect(inspected.Digest).toBe(index.digest);
    });
  });
});
