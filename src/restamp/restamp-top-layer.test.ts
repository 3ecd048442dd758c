import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LayerEntry } from '../oci-image/layer.ts';
import { createLayer } from '../oci-image/layer.ts';
import { readLayer } from '../oci-image/read-layer.ts';
import { openStore } from '../registry/open-store.ts';
import { MEDIA_TYPES } from '../registry/store.ts';
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
