import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LayerEntry } from '../oci-image/layer.ts';
import { createLayer } from '../oci-image/layer.ts';
import { readLayer } from '../oci-image/read-layer.ts';
import { openStore } from '../registry/open-store.ts';
import { type ImageStore, MEDIA_TYPES } from '../registry/store.ts';
import { layerScanCache } from './layer-scan-cache.ts';
import { rewrittenTopLayer, topLayerTime } from './restamp-top-layer.ts';

const dir = mkdtempSync(join(tmpdir(), 'sr-top-layer-'));
const store = openStore(`oci-layout:${dir}`, { cwd: dir, env: {} });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function pushLayers(...layers: LayerEntry[][]) {
  const out = [];
  for (const entries of layers) {
    const layer = await createLayer(entries, 1_700_000_000);
    await store.putBlob('web', layer.digest, layer.bytes);
    out.push({ mediaType: MEDIA_TYPES.ociLayerGzip, digest: layer.digest, size: layer.size });
  }
  return out;
}

const make = (layers: Awaited<ReturnType<typeof pushLayers>>) =>
  rewrittenTopLayer({
    store,
    repository: 'web',
    layers,
    rcVersion: 'v1.2.0-rc.1',
    version: 'v1.2.0',
    mtimeSeconds: 1_700_000_000,
  });

describe('rewrittenTopLayer', () => {
  it("rewrites the files the merged tree holds with the rc version, deterministically, with the rc's owners and folders; binaries, shadowed and removed files left", async () => {
    const layers = await pushLayers(
      [
        { type: 'dir', path: '/srv/web', mode: 0o750, uid: 1000, gid: 1000 },
        {
          type: 'file',
          path: '/srv/web/app.js',
          mode: 0o640,
          uid: 1000,
          gid: 1001,
          content: 'v="v1.2.0-rc.1";s="1.2.0-rc.1";p="1.2.0rc1"',
        },
        { type: 'file', path: '/srv/web/old.js', content: 'v1.2.0-rc.1' },
        { type: 'file', path: '/srv/web/shadowed.txt', content: 'v1.2.0-rc.1' },
        { type: 'file', path: '/usr/bin/tool', content: Buffer.from('\0ELF v1.2.0-rc.1\0') },
        { type: 'file', path: '/srv/web/lib.js', content: 'depends on 1.2.0 and v1.2.0-rc.10' },
      ],
      [
        { type: 'dir', path: '/srv/web', mode: 0o750, uid: 1000, gid: 1000, mtime: 1_600_000_000 },
        { type: 'file', path: '/srv/web/.wh.old.js', content: '' },
        { type: 'file', path: '/srv/web/shadowed.txt', content: 'no version here' },
      ],
    );
    const top = await make(layers);
    expect(top.files).toEqual(['/srv/web/app.js']);
    expect(top.binaries).toEqual(['/usr/bin/tool']);
    expect(top.comparison.equal).toBe(true);
    expect(top.comparison.versionOnly.map((d) => d.path)).toEqual(['/srv/web/app.js']);
    const nodes = await readLayer(top.layer!.bytes, { what: 'top' });
    // The folders as the rc's last layer holding them says (an overlay runtime would otherwise
    // make them root's); /srv has no entry in the rc (createLayer wrote it as root's, 0755).
    expect(nodes).toEqual([
      { type: 'dir', path: '/srv', mode: 0o755, uid: 0, gid: 0, mtime: 1_700_000_000 },
      { type: 'dir', path: '/srv/web', mode: 0o750, uid: 1000, gid: 1000, mtime: 1_600_000_000 },
      {
        type: 'file',
        path: '/srv/web/app.js',
        mode: 0o640,
        uid: 1000,
        gid: 1001,
        content: Buffer.from('v="v1.2.0";s="1.2.0";p="1.2.0"'),
      },
    ]);
    expect((await make(layers)).layer!.digest).toBe(top.layer!.digest);
  });

  it('no text file carries the rc version: no layer', async () => {
    const top = await make(await pushLayers([{ type: 'file', path: '/a.txt', content: 'v1.2.0' }]));
    expect(top.layer).toBeUndefined();
    expect(top.files).toEqual([]);
  });

  it("a form of the rc's version glued to other text is refused", async () => {
    const layers = await pushLayers([{ type: 'file', path: '/a.js', content: 'x=av1.2.0-rc.1b' }]);
    await expect(make(layers)).rejects.toMatchObject({ code: 'REWRITE_INCOMPLETE' });
  });

  it("the entry time is the rc's created, or 0", () => {
    expect(topLayerTime('2026-11-01T10:00:00Z')).toBe(1_793_527_200);
    expect(topLayerTime(undefined)).toBe(0);
    expect(topLayerTime('not a date')).toBe(0);
  });
});

describe('rewrittenTopLayer with a cache of layer scans', () => {
  const cacheDir = mkdtempSync(join(tmpdir(), 'sr-scan-cache-'));
  afterAll(() => rmSync(cacheDir, { recursive: true, force: true }));
  const scans = layerScanCache(cacheDir);
  // The same store, counting the blobs read: a cached scan must not read its layer again.
  const reads: string[] = [];
  const counting: ImageStore = Object.create(store, {
    getBlob: {
      value: (repository: string, digest: string) => {
        reads.push(digest);
        return store.getBlob(repository, digest);
      },
    },
  });
  const withCache = (
    layers: Awaited<ReturnType<typeof pushLayers>>,
    rcVersion = 'v1.2.0-rc.1',
    cache = scans,
  ) =>
    rewrittenTopLayer({
      store: counting,
      repository: 'web',
      layers,
      rcVersion,
      version: 'v1.2.0',
      mtimeSeconds: 1_700_000_000,
      scans: cache,
    });

  it('a second scan of the same layers under the same rc reads no layer and gives the same top layer; another rc scans again', async () => {
    const layers = await pushLayers(
      [
        { type: 'dir', path: '/srv', mode: 0o755 },
        { type: 'file', path: '/srv/a.js', content: 'v="v1.2.0-rc.1"', mode: 0o640 },
        { type: 'file', path: '/srv/b.js', content: 'v="v1.2.0-rc.2"' },
        { type: 'symlink', path: '/srv/link', target: 'a.js' },
        { type: 'file', path: '/srv/gone.js', content: 'v1.2.0-rc.1' },
      ],
      [
        { type: 'file', path: '/srv/.wh.gone.js', content: '' },
        { type: 'file', path: '/srv/c.txt', content: 'made for 1.2.0-rc.1' },
      ],
    );
    const uncached = await make(layers);
    reads.length = 0;
    const first = await withCache(layers);
    expect(reads).toHaveLength(2);
    reads.length = 0;
    const second = await withCache(layers);
    expect(reads).toEqual([]);
    for (const top of [first, second]) {
      expect(top.layer!.digest).toBe(uncached.layer!.digest);
      expect(top.files).toEqual(['/srv/a.js', '/srv/c.txt']);
      expect(top.comparison).toEqual(uncached.comparison);
    }
    // Another rc selects other files: its scan is its own.
    const rc2 = await withCache(layers, 'v1.2.0-rc.2');
    expect(reads).toHaveLength(2);
    expect(rc2.files).toEqual(['/srv/b.js']);
  });

  it('a damaged entry is not used: the layer is read again and the entry rewritten', async () => {
    const own = join(cacheDir, 'damaged');
    const layers = await pushLayers([{ type: 'file', path: '/x.js', content: 'v1.2.0-rc.1' }]);
    await withCache(layers, undefined, layerScanCache(own));
    const [name, ...more] = readdirSync(join(own, 'layer-scans')).filter((n) => n.endsWith('.json'));
    expect(more).toEqual([]);
    const entry = join(own, 'layer-scans', name!);
    const good = JSON.parse(readFileSync(entry, 'utf8'));
    for (const damage of [
      '{"format":1',
      JSON.stringify({ ...good, nodes: [{ type: 'file', path: '/x.js', mode: 0o644 }] }),
      JSON.stringify({ ...good, nodes: [{ type: 'file', path: '/x.js', mode: 0o70000, content: '' }] }),
      JSON.stringify({ ...good, key: 'another' }),
      '[]',
    ]) {
      writeFileSync(entry, damage);
      reads.length = 0;
      expect((await withCache(layers, undefined, layerScanCache(own))).files).toEqual(['/x.js']);
      expect(reads).toHaveLength(1);
      expect(JSON.parse(readFileSync(entry, 'utf8')).nodes).toHaveLength(1);
    }
  });

  it('a cached scan of a layer the store no longer holds is not used: reading it fails as before', async () => {
    const layers = await pushLayers([{ type: 'file', path: '/y.js', content: 'v1.2.0-rc.1' }]);
    await withCache(layers);
    const other = [{ ...layers[0]! }];
    const elsewhere: ImageStore = Object.create(counting, {
      hasBlob: { value: async () => false },
      getBlob: { value: async () => Promise.reject(new Error('blob unknown')) },
    });
    await expect(
      rewrittenTopLayer({
        store: elsewhere,
        repository: 'web',
        layers: other,
        rcVersion: 'v1.2.0-rc.1',
        version: 'v1.2.0',
        mtimeSeconds: 0,
        scans,
      }),
    ).rejects.toThrow('blob unknown');
  });
});
