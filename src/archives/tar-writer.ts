import type { Readable } from 'node:stream';
import { pack } from 'tar-stream';

/** An entry's header as written: name, type, mode, time, owner, size (a file), link target. */
export type TarWriteHeader = Parameters<ReturnType<typeof pack>['entry']>[0];

/**
 * The one tar writer: entries added in order, each awaited (a body streamed from disk is written
 * whole before the next header), the tar bytes out of `output`. Deterministic archives come from
 * their headers (fixed times, owner 0): the callers' rules, not this writer's.
 */
export class TarWriter {
  private readonly tar = pack();
  /** The tar bytes as they are written: pipe it to a file, or collect it. */
  readonly output: Readable = this.tar as unknown as Readable;

  /** One entry; a directory's name gets its trailing slash here. `body`: bytes or a stream of them. */
  add(header: TarWriteHeader, body?: Buffer | Readable): Promise<void> {
    const name = header.type === 'directory' && !header.name.endsWith('/') ? `${header.name}/` : header.name;
    return new Promise<void>((resolve, reject) => {
      const done = (error?: Error | null) => (error ? reject(error) : resolve());
      if (body === undefined) this.tar.entry({ ...header, name }, done);
      else if (Buffer.isBuffer(body)) this.tar.entry({ ...header, name }, body, done);
      else body.on('error', reject).pipe(this.tar.entry({ ...header, name }, done));
    });
  }

  /** No more entries: `output` ends after the tar's closing blocks. */
  finish(): void {
    this.tar.finalize();
  }

  destroy(): void {
    this.tar.destroy();
  }
}

/** A whole tar in memory, from a writer's entries. */
export async function tarBytes(write: (writer: TarWriter) => Promise<void>): Promise<Buffer> {
  const writer = new TarWriter();
  const chunks: Buffer[] = [];
  const ended = new Promise<void>((resolve, reject) => {
    writer.output.on('data', (chunk: Buffer) => chunks.push(chunk));
    writer.output.on('end', resolve);
    writer.output.on('error', reject);
  });
  try {
    await write(writer);
  } catch (error) {
    writer.destroy();
    throw error;
  }
  writer.finish();
  await ended;
  return Buffer.concat(chunks);
}
