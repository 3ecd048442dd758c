import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { LayerNode } from '../oci-image/read-layer.ts';
import { layerScanCache, layerScanCacheFor, scanKey } from './layer-scan-cache.ts';

const dir = mkdtempSync(join(tmpdir(), 'sr-layer-scans-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const digest = `sha256:${'a'.repeat(64)}`;

const EVERY_KIND: LayerNode[] = [
  { type: 'dir', path: '/srv', mode: 0o2750, uid: 1000, gid: 33, mtime: 1_700_000_000 },
  {
    type: 'file',
    path: '/srv/a.js',
    mode: 0o755,
    uid: 1000,
    gid: 1000,
    content: Buffer.from('v1.0.0-rc.1 \u00e9\0'),
  },
  { type: 'file', path: '/srv/unselected', mode: 0o644, uid: 0, gid: 0, content: Buffer.alloc(0) },
  { type: 'symlink', path: '/srv/l', target: '../etc/x' },
  { type: 'hardlink', path: '/srv/h', target: '/srv/a.js' },
  { type: 'device', path: '/dev/null', kind: 'char' },
  { type: 'device', path: '/dev/sda', kind: 'block' },
  { type: 'device', path: '/run/p', kind: 'fifo' },
  { type: 'whiteout', path: '/srv/old' },
  { type: 'opaque', path: '/var' },
];

describe('layer scan cache', () => {
  it('keeps every kind of node as the scan gave it, under the layer digest and the scan together', async () => {
    const cache = layerScanCache(dir);
    expect(await cache.read(digest, 'scan-1')).toBeUndefined();
    await cache.write(digest, 'scan-1', EVERY_KIND);
    expect(await cache.read(digest, 'scan-1')).toEqual(EVERY_KIND);
    expect(await cache.read(digest, 'scan-2')).toBeUndefined();
    expect(await cache.read(`sha256:${'b'.repeat(64)}`, 'scan-1')).toBeUndefined();
    expect(scanKey(digest, 'scan-1')).not.toBe(scanKey(digest, 'scan-2'));
  });

  it('an entry of another shape is not used', async () => {
    const cache = layerScanCache(dir);
    const path = join(dir, 'layer-scans', `${scanKey(digest, 'odd')}.json`);
    const key = scanKey(digest, 'odd');
    for (const nodes of [
      [{ type: 'socket', path: '/x' }],
      [{ type: 'device', path: '/x', kind: 'tty' }],
      [{ type: 'dir', path: '/x', mode: -1, uid: 0, gid: 0, mtime: 0 }],
      // The shape before owners were kept: a re-stamp needs the folders' owners.
      [{ type: 'dir', path: '/x', mode: 0o755 }],
      [{ type: 'file', path: '/x', mode: 0o644, content: '' }],
      [{ type: 'dir', path: '/x', mode: 0o755, uid: -1, gid: 0, mtime: 0 }],
      [{ type: 'symlink', path: '/x' }],
      [{ type: 'file', path: 7, mode: 0o644, content: '' }],
      [null],
    ]) {
      writeFileSync(path, JSON.stringify({ format: 2, key, nodes }));
      expect(await cache.read(digest, 'odd')).toBeUndefined();
    }
  });

  it('a cache that cannot be written is only not written; RELEASE_NO_CACHE turns it off', async () => {
    // A file where the folder should be: nothing can be written there, by root either.
    const blocked = join(dir, 'blocked');
    writeFileSync(blocked, '');
    const cache = layerScanCache(blocked);
    await expect(cache.write(digest, 'scan', EVERY_KIND)).resolves.toBeUndefined();
    expect(await cache.read(digest, 'scan')).toBeUndefined();
    expect(layerScanCacheFor({ RELEASE_NO_CACHE: '1', RELEASE_CACHE_DIR: dir })).toBeUndefined();
    expect(layerScanCacheFor({ RELEASE_CACHE_DIR: dir })).toBeDefined();
  });
});
