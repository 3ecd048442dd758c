import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { extract, type Headers as Header } from 'tar-stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createLayer } from './layer.ts';

async function entriesOf(gz: Uint8Array): Promise<(Header & { body: string })[]> {
  const out: (Header & { body: string })[] = [];
  const reader = extract();
  const done = (async () => {
    for await (const entry of reader) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(chunk as Buffer);
      out.push({ ...entry.header, body: Buffer.concat(chunks).toString() });
    }
  })();
  reader.end(gunzipSync(gz));
  await done;
  return out;
}

describe('createLayer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sr-layer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('sorts entries, adds parents, and fixes owner, mtime and modes', async () => {
    const file = join(dir, 'main.mjs');
    writeFileSync(file, 'console.log(1)\n', { mode: 0o600 });
    const layer = await createLayer(
      [
        { type: 'file', path: '/app/web/z.txt', content: 'z' },
        { type: 'file', path: '/app/api/main.mjs', source: file },
        { type: 'symlink', path: '/usr/bin/node', target: '/usr/local/bin/node' },
        { type: 'dir', path: '/tmp', mode: 0o1777 },
      ],
      1_700_000_000,
    );
    const entries = await entriesOf(layer.bytes);
    expect(entries.map((e) => e.name)).toEqual([
      'app/',
      'app/api/',
      'app/api/main.mjs',
      'app/web/',
      'app/web/z.txt',
      'tmp/',
      'usr/',
      'usr/bin/',
      'usr/bin/node',
    ]);
    for (const entry of entries) {
      expect([entry.uid, entry.gid, entry.uname, entry.gname]).toEqual([0, 0, '', '']);
      expect(entry.mtime?.getTime()).toBe(1_700_000_000_000);
    }
    const byName = Object.fromEntries(entries.map((e) => [e.name, e]));
    // The source file's 0600 on disk does not leak: files get the fixed 0644.
    expect(byName['app/api/main.mjs']?.mode).toBe(0o644);
    expect(byName['app/api/main.mjs']?.body).toBe('console.log(1)\n');
    expect(byName['app/']?.mode).toBe(0o755);
    expect(byName['tmp/']?.mode).toBe(0o1777);
    expect(byName['usr/bin/node']?.linkname).toBe('/usr/local/bin/node');
  });

  it('gives the same bytes for the same inputs, whatever the source files times, and digests that match', async () => {
    const file = join(dir, 'same.txt');
    writeFileSync(file, 'same\n');
    const first = await createLayer([{ type: 'file', path: '/a/same.txt', source: file }], 1);
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const second = await createLayer([{ type: 'file', path: '/a/same.txt', source: file }], 1);
    expect(second.digest).toBe(first.digest);
    expect(first.digest).toBe(`sha256:${createHash('sha256').update(first.bytes).digest('hex')}`);
    expect(first.diffId).toBe(`sha256:${createHash('sha256').update(gunzipSync(first.bytes)).digest('hex')}`);
    // The gzip header carries no name and no time (bytes 4-7 are MTIME).
    expect([...first.bytes.subarray(4, 8)]).toEqual([0, 0, 0, 0]);
    const later = await createLayer([{ type: 'file', path: '/a/same.txt', source: file }], 2);
    expect(later.digest).not.toBe(first.digest);
  });

  it('refuses paths that escape the root', async () => {
    await expect(createLayer([{ type: 'file', path: '../etc/passwd', content: 'x' }], 0)).rejects.toThrow(
      /bad layer path/,
    );
  });
});

describe('createLayer conflicts', () => {
  it('refuses two entries at one path, or a file where a directory is needed', async () => {
    await expect(
      createLayer(
        [
          { type: 'file', path: '/a/b', content: 'x' },
          { type: 'file', path: '/a', content: 'y' },
        ],
        0,
      ),
    ).rejects.toThrow(/duplicate layer path: a/);
    await expect(
      createLayer(
        [
          { type: 'file', path: '/a', content: 'x' },
          { type: 'file', path: '/a', content: 'y' },
        ],
        0,
      ),
    ).rejects.toThrow(/duplicate layer path: a/);
  });
});
