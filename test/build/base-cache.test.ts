import { createHash } from 'node:crypto';
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeBaseImage } from '../../src/build-engines/base-image.ts';
import { baseLayerKey, blobPath, entryPath } from '../../src/build-engines/base-layer-cache.ts';
import { LayoutStore } from '../../src/registry/layout-store.ts';

// The base made from this machine's node is kept between runs (build-engines/base-layer-cache.ts):
// told apart by its cache entry (the files, their inodes and times), never by how long it took.

describe('the base layer cache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sr-base-cache-'));
  const cache = join(dir, 'cache');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  let n = 0;
  const make = (node?: string) =>
    makeBaseImage({
      store: new LayoutStore(join(dir, `layout-${++n}`)),
      repository: 'node',
      tags: ['20'],
      epoch: 0,
      cacheDir: cache,
      ...(node ? { node } : {}),
    });
  const entries = () => readdirSync(join(cache, 'base-layers')).filter((name) => name.endsWith('.json'));
  const identity = (path: string) => {
    const s = statSync(path, { bigint: true });
    return `${s.ino}:${s.mtimeNs}:${s.ctimeNs}`;
  };
  const entryOf = (name: string) =>
    JSON.parse(readFileSync(join(cache, 'base-layers', name), 'utf8')) as { key: string; digest: string };

  let digest = '';
  let entry = '';

  it('keeps the layer on the first build and takes it from the cache on the second', async () => {
    const first = await make();
    expect(first.cache).toBe('made');
    expect(entries()).toHaveLength(1);
    entry = entries()[0]!;
    const { key, digest: layer } = entryOf(entry);
    const before = { entry: identity(entryPath(cache, key)), blob: identity(blobPath(cache, layer)) };

    const second = await make();
    expect(second.cache).toBe('hit');
    expect(second.digest).toBe(first.digest);
    expect(second.nodeVersion).toBe(process.version);
    // Neither file was written again: same inode, same times.
    expect(identity(entryPath(cache, key))).toBe(before.entry);
    expect(identity(blobPath(cache, layer))).toBe(before.blob);
    digest = first.digest;
  }, 120_000);

  it('remakes a layer whose blob was damaged, and an entry cut short', async () => {
    const { key, digest: layer } = entryOf(entry);
    const blob = blobPath(cache, layer);
    const bytes = readFileSync(blob);
    bytes[bytes.length >> 1]! ^= 0xff;
    writeFileSync(blob, bytes);
    const remade = await make();
    expect(remade.cache).toBe('remade');
    expect(remade.digest).toBe(digest);
    expect(`sha256:${createHash('sha256').update(readFileSync(blob)).digest('hex')}`).toBe(layer);

    const text = readFileSync(entryPath(cache, key), 'utf8');
    writeFileSync(entryPath(cache, key), text.slice(0, text.length >> 1));
    expect((await make()).cache).toBe('remade');
    expect((await make()).cache).toBe('hit');
    // No temporary file is left beside them.
    expect(readdirSync(join(cache, 'base-layers')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  }, 120_000);

  it('keys an entry by the node binary: another file, or the same one touched, is a new entry', async () => {
    const other = join(dir, 'node');
    copyFileSync(process.execPath, other);
    const copied = await make(other);
    expect(copied.cache).toBe('made');
    // The same bytes at another path give the same image (its layer's times are the epoch's)...
    expect(copied.digest).toBe(digest);
    expect(entries()).toHaveLength(2);
    expect((await make(other)).cache).toBe('hit');

    // ... but the key follows the file: a binary changed in place (new times) is not trusted.
    utimesSync(other, new Date(), new Date(Date.now() - 60_000));
    expect((await make(other)).cache).toBe('made');
    expect(entries()).toHaveLength(3);
  }, 180_000);

  it('gives a different key for a different epoch or file list', async () => {
    const file = join(dir, 'x');
    writeFileSync(file, 'x');
    const list = [{ type: 'file' as const, path: '/x', source: file }];
    const key = await baseLayerKey(list, 0, 1);
    expect(await baseLayerKey(list, 0, 1)).toBe(key);
    expect(await baseLayerKey(list, 1, 1)).not.toBe(key);
    expect(await baseLayerKey(list, 0, 6)).not.toBe(key);
    expect(await baseLayerKey([{ ...list[0]!, path: '/y' }], 0, 1)).not.toBe(key);
  });
});
