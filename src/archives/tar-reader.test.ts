import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readTar, TarGzipError, TarLimitError } from './tar-reader.ts';
import { tarBytes } from './tar-writer.ts';

const mtime = new Date(0);

function tarOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  return tarBytes(async (tar) => {
    await tar.add({ name: 'app', type: 'directory', mode: 0o755, mtime });
    for (const [name, body] of Object.entries(files)) {
      const bytes = Buffer.from(body);
      await tar.add({ name, type: 'file', mode: 0o644, size: bytes.length, mtime }, bytes);
    }
  });
}

async function names(
  source: Uint8Array | NodeJS.ReadableStream,
  options?: Parameters<typeof readTar>[1],
  read: (name: string) => boolean = () => true,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for await (const entry of readTar(source, options))
    out[entry.header.name] =
      entry.header.type === 'file' && read(entry.header.name) ? (await entry.bytes()).toString() : '';
  return out;
}

async function failure(run: Promise<unknown>): Promise<Error> {
  return run.then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: Error) => error,
  );
}

describe('readTar, the one tar reader', () => {
  it('reads plain and gzipped tars, from bytes or a stream, and skips bodies left unread', async () => {
    const tar = await tarOf({ 'app/a.txt': 'one', 'app/b.txt': 'two', 'app/c.txt': 'three' });
    const expected = { 'app/': '', 'app/a.txt': 'one', 'app/b.txt': 'two', 'app/c.txt': 'three' };
    expect(await names(tar)).toEqual(expected);
    expect(await names(gzipSync(tar))).toEqual(expected);
    expect(await names(Readable.from([gzipSync(tar)]))).toEqual(expected);
    // Small chunks: the gzip magic is read across them, bodies span them.
    const chunks = [...gzipSync(tar)].map((byte) => Buffer.from([byte]));
    expect(await names(Readable.from(chunks))).toEqual(expected);
    expect(await names(tar, {}, (name) => name !== 'app/b.txt')).toEqual({ ...expected, 'app/b.txt': '' });
  });

  it('refuses past each bound, before reading the body that passes it', async () => {
    const tar = await tarOf({ 'app/a.txt': 'x'.repeat(100), 'app/b.txt': 'y'.repeat(100) });
    const limited = (limits: Parameters<typeof readTar>[1]) => failure(names(tar, limits));
    expect(await limited({ limits: { maxEntries: 2 } })).toEqual(
      new TarLimitError('it holds more than 2 entries'),
    );
    expect((await limited({ limits: { maxEntryBytes: 99 } })).message).toBe(
      'entry app/a.txt is 100 bytes, over the 99-byte limit',
    );
    expect(await limited({ limits: { maxTotalBytes: 150 } })).toEqual(
      new TarLimitError('its entries pass 150 bytes unpacked'),
    );
    const one = readTar(tar);
    await one.next();
    const entry = (await one.next()).value!;
    expect(await failure(entry.bytes(10))).toBeInstanceOf(TarLimitError);
    await one.return(undefined);
  });

  it('refuses a gzip bomb by its ratio once past the floor, and a small archive of zeros is no bomb', async () => {
    const zeros = await tarOf({ 'app/zeros': Buffer.alloc(4 * 1024 * 1024) });
    const bomb = gzipSync(zeros, { level: 9 });
    expect(bomb.length * 200).toBeLessThan(zeros.length);
    const refused = await failure(names(bomb, { limits: { ratioFloorBytes: 1024 * 1024 } }));
    expect(refused).toEqual(new TarLimitError('it unpacks to more than 200 times its size'));
    expect(Object.keys(await names(bomb))).toEqual(['app/', 'app/zeros']);
  });

  it('fails a tar cut short inside an entry, and gzip that is not gzip, instead of waiting for ever', async () => {
    const tar = await tarOf({ 'app/a.txt': 'z'.repeat(5000) });
    expect((await failure(names(tar.subarray(0, 1024)))).message).toMatch(/unexpected end of data/i);
    expect((await failure(names(Readable.from([tar.subarray(0, 1024)])))).message).toMatch(
      /unexpected end of data/i,
    );
    const cut = gzipSync(tar).subarray(0, 40);
    expect(await failure(names(cut))).toBeInstanceOf(TarGzipError);
    expect(await failure(names(Buffer.from('not gzip at all'), { gzip: true }))).toBeInstanceOf(TarGzipError);
  });
});
