import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { extract, type Headers as Header } from 'tar-stream';

/**
 * What one archive may hold before it is refused, whoever reads it (an image layer, a mirror's
 * archive, a `docker save`, a CLI archive): outside bytes are hostile, and a tar names its own
 * sizes. One place for every reader, so no reader is left without them.
 */
export interface TarLimits {
  /** Entries of the archive, of any type. */
  maxEntries: number;
  /** The size one entry declares. */
  maxEntryBytes: number;
  /** The sizes of all entries together: what unpacking the archive writes. */
  maxTotalBytes: number;
  /**
   * A gzipped archive's unpacked bytes per packed byte (a gzip bomb), judged once
   * `ratioFloorBytes` are unpacked: a small archive of zeros is no threat.
   */
  maxRatio: number;
  ratioFloorBytes: number;
}

export const TAR_LIMITS: Readonly<TarLimits> = {
  maxEntries: 500_000,
  maxEntryBytes: 8 * 1024 ** 3,
  maxTotalBytes: 32 * 1024 ** 3,
  maxRatio: 200,
  ratioFloorBytes: 64 * 1024 ** 2,
};

/** An entry's header, as the archive declares it (name as written: callers normalise). */
export type TarHeader = Header;

/** One entry: its header and its body, read at most once, in one of three ways. */
export interface TarEntry {
  header: TarHeader;
  /** The whole body, refused (an Error naming the entry) past `max` bytes. */
  bytes(max?: number): Promise<Buffer>;
  /** The body's chunks as they come, for a reader that keeps only part of them. */
  chunks(): AsyncIterable<Buffer>;
  /** The body into `sink` (a file), failing with the archive if the archive fails first. */
  pipeTo(sink: Writable): Promise<void>;
}

/** A bound of TarLimits passed: the archive is refused at that point, nothing more is read. */
export class TarLimitError extends Error {}

/** The bytes are not gzip although they start as gzip, or a gzip stream is cut short. */
export class TarGzipError extends Error {}

export interface TarOptions {
  /** Gunzip first: `detect` (the default) by the gzip magic bytes of the first chunk. */
  gzip?: boolean | 'detect';
  limits?: Partial<TarLimits>;
}

/**
 * Every entry of a tar (gzipped or not), streamed from bytes or a stream: the archive is never
 * whole in memory, the bounds of TAR_LIMITS hold before a body is read, and a body the caller
 * leaves unread is skipped. The one reader of archives in the toolkit (tar-stream's
 * quirks handled once: a tar cut short inside an entry fails that entry's body too, instead of
 * leaving it open for ever). Errors are the archive's own messages ("unexpected end of data"),
 * a TarLimitError, or a TarGzipError: the caller says which archive, in its own words and code.
 */
export async function* readTar(
  source: Uint8Array | NodeJS.ReadableStream,
  options: TarOptions = {},
): AsyncGenerator<TarEntry> {
  const limits = { ...TAR_LIMITS, ...options.limits };
  const reader = extract();
  const input =
    source instanceof Uint8Array
      ? Readable.from([Buffer.from(source.buffer, source.byteOffset, source.byteLength)])
      : (source as NodeJS.ReadableStream);
  // The first failure is the archive's: a later one (the pipeline seeing the reader closed) is not.
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure ??= error;
    reader.destroy(failure);
  };
  void feed(input, reader, options.gzip ?? 'detect', limits, fail);

  const failed = new Promise<never>((_, reject) => reader.once('error', reject));
  failed.catch(() => {});
  let entries = 0;
  let total = 0;
  try {
    for await (const body of reader) {
      const header = body.header;
      const size = header.size ?? 0;
      entries += 1;
      total += size;
      if (entries > limits.maxEntries)
        throw new TarLimitError(`it holds more than ${limits.maxEntries} entries`);
      if (size > limits.maxEntryBytes)
        throw new TarLimitError(
          `entry ${header.name} is ${size} bytes, over the ${limits.maxEntryBytes}-byte limit`,
        );
      if (total > limits.maxTotalBytes)
        throw new TarLimitError(`its entries pass ${limits.maxTotalBytes} bytes unpacked`);
      let used = false;
      const use = () => {
        if (used) throw new Error(`the body of ${header.name} is read once`);
        used = true;
      };
      yield {
        header,
        bytes: async (max = Number.POSITIVE_INFINITY) => {
          use();
          if (size > max) throw new TarLimitError(`entry ${header.name} is ${size} bytes, over ${max}`);
          const chunks: Buffer[] = [];
          await Promise.race([collect(body, chunks), failed]);
          return Buffer.concat(chunks);
        },
        chunks: () => {
          use();
          return raced(body, failed);
        },
        pipeTo: async (sink) => {
          use();
          await Promise.race([pipeline(body, sink), failed]);
        },
      };
      if (!used) {
        body.resume();
        await Promise.race([new Promise<void>((resolve) => body.once('end', () => resolve())), failed]);
      }
    }
  } finally {
    reader.destroy();
    (input as Readable).destroy?.();
  }
}

/** The input into the tar reader, gunzipped when it is gzip, with the ratio bound on the way. */
async function feed(
  input: NodeJS.ReadableStream,
  reader: ReturnType<typeof extract>,
  gzip: boolean | 'detect',
  limits: TarLimits,
  fail: (error: Error) => void,
): Promise<void> {
  try {
    const chunks = (input as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
    // The gzip magic is two bytes, which a stream may hand over one at a time.
    let head = Buffer.alloc(0);
    while (head.length < 2) {
      const next = await chunks.next();
      if (next.done) break;
      head = Buffer.concat([head, next.value]);
    }
    const gzipped = gzip === 'detect' ? head[0] === 0x1f && head[1] === 0x8b : gzip;
    let packed = 0;
    async function* counted(): AsyncGenerator<Buffer> {
      packed += head.length;
      if (head.length) yield head;
      for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
        packed += next.value.length;
        yield next.value;
      }
    }
    if (!gzipped) return await pipeline(Readable.from(counted()), reader);
    let unpacked = 0;
    const ratio = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        unpacked += chunk.length;
        if (unpacked > limits.ratioFloorBytes && unpacked > packed * limits.maxRatio)
          done(new TarLimitError(`it unpacks to more than ${limits.maxRatio} times its size`));
        else done(null, chunk);
      },
    });
    const gunzip = createGunzip();
    gunzip.on('error', (error) => fail(new TarGzipError(error.message)));
    await pipeline(Readable.from(counted()), gunzip, ratio, reader);
  } catch (error) {
    fail(error as Error);
  }
}

async function collect(body: AsyncIterable<unknown>, chunks: Buffer[]): Promise<void> {
  for await (const chunk of body) chunks.push(chunk as Buffer);
}

async function* raced(body: AsyncIterable<unknown>, failed: Promise<never>): AsyncGenerator<Buffer> {
  const iterator = body[Symbol.asyncIterator]();
  for (;;) {
    const next = await Promise.race([iterator.next(), failed]);
    if (next.done) return;
    yield next.value as Buffer;
  }
}
