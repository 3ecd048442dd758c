import { pack } from 'tar-stream';

/** One tar entry as tar-stream takes it, with its body for a file. */
export type TarEntry = Parameters<ReturnType<typeof pack>['entry']>[0] & { body?: string };

/**
 * A tar as another tool writes it (GNU tar, buildkit): entries in the given order, any type the
 * OCI image spec names (files, directories, symlinks, hardlinks, whiteout files).
 */
export async function tarOf(entries: TarEntry[]): Promise<Buffer> {
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
