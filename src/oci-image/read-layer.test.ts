import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { describe, expect, it } from 'vitest';
import { applyLayers, readLayer, treeBytes } from './read-layer.ts';

type Entry = Parameters<ReturnType<typeof pack>['entry']>[0] & { body?: string };

/** A tar as another tool writes it (GNU tar, buildkit): every entry type the OCI spec names. */
async function tarOf(entries: Entry[]): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: unknown) => chunks.push(c as Buffer));
  const ended = new Promise<void>((resolve) => tar.on('end', () => resolve()));
  for (const { body, ...header } of entries)
    await new Promise<void>((resolve, reject) =>
      body === undefined
        ? tar.entry(header, (e) => (e ? reject(e) : resolve()))
        : tar.entry(header, body, (e) => (e ? reject(e) : resolve())),
    );
  tar.finalize();
  await ended;
  return Buffer.concat(chunks);
}

const base = () =>
  tarOf([
    { name: 'usr/', type: 'directory', uid: 1000, gid: 50, mtime: new Date(1_700_000_000_000) },
    { name: 'usr/local/bin/node', body: 'ELF node', uid: 7, gid: 8 },
    { name: 'usr/bin/node', type: 'symlink', linkname: '/usr/local/bin/node' },
    { name: 'usr/bin/nodejs', type: 'link', linkname: 'usr/local/bin/node' },
    { name: 'dev/null', type: 'character-device' },
    { name: 'dev/sda', type: 'block-device' },
    { name: 'run/pipe', type: 'fifo' },
    { name: 'etc/old.conf', body: 'old' },
    { name: 'var/cache/a', body: 'a' },
    { name: 'var/cache/b', body: 'b' },
  ]);

describe('readLayer', () => {
  it('reads every entry type of an image layer, gzipped or not, with owners, links never followed', async () => {
    const tar = await base();
    for (const blob of [tar, gzipSync(tar)]) {
      const nodes = await readLayer(blob, { what: 'the base layer' });
      expect(nodes).toEqual(
        expect.arrayContaining([
          { type: 'dir', path: '/usr', mode: 0o755, uid: 1000, gid: 50, mtime: 1_700_000_000 },
          {
            type: 'file',
            path: '/usr/local/bin/node',
            mode: 0o644,
            uid: 7,
            gid: 8,
            content: Buffer.from('ELF node'),
          },
          { type: 'symlink', path: '/usr/bin/node', target: '/usr/local/bin/node' },
          { type: 'hardlink', path: '/usr/bin/nodejs', target: '/usr/local/bin/node' },
          { type: 'device', path: '/dev/null', kind: 'char' },
          { type: 'device', path: '/dev/sda', kind: 'block' },
          { type: 'device', path: '/run/pipe', kind: 'fifo' },
        ]),
      );
    }
  });

  it('keeps only the content asked for, and refuses what is not a tar, naming the layer', async () => {
    const nodes = await readLayer(await base(), { what: 'x', keep: (p) => p.startsWith('/etc/') });
    const file = (p: string) => nodes.find((n) => n.path === p) as { content: Buffer };
    expect(file('/etc/old.conf').content.toString()).toBe('old');
    expect(file('/usr/local/bin/node').content.length).toBe(0);
    await expect(readLayer(gzipSync(Buffer.from('no tar here')), { what: "web's rc layer" })).rejects.toThrow(
      /web's rc layer is not a readable tar/,
    );
    await expect(readLayer(await base(), { what: 'big', maxBytes: 4 })).rejects.toThrow(/pass 4 bytes/);
  });

  it('applies layers as a runtime does: later wins, whiteouts remove, opaque directories hide', async () => {
    const lower = await readLayer(await base(), { what: 'lower' });
    const upper = await readLayer(
      await tarOf([
        { name: 'etc/.wh.old.conf', body: '' },
        { name: 'var/cache/.wh..wh..opq', body: '' },
        { name: 'var/cache/c', body: 'c' },
        { name: 'usr/bin/node', type: 'symlink', linkname: 'nodejs' },
      ]),
      { what: 'upper' },
    );
    const tree = applyLayers([lower, upper]);
    expect([...tree.keys()].sort()).toEqual([
      '/usr/bin/node',
      '/usr/bin/nodejs',
      '/usr/local/bin/node',
      '/var/cache/c',
    ]);
    expect(tree.get('/usr/bin/node')).toEqual({ type: 'symlink', target: 'nodejs' });
    // A link compares by type and target, never equal to a file holding the same text.
    const bytes = treeBytes(tree);
    expect(bytes.get('/usr/bin/nodejs')!.toString()).toBe('\0hardlink -> /usr/local/bin/node\n');
    expect(bytes.get('/usr/bin/node')!.equals(Buffer.from('nodejs'))).toBe(false);
  });
});
