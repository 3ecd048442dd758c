import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, normalize, sep } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { extract, pack } from 'tar-stream';
import { RuleError } from '../errors.ts';

/** Every entry's time: fixed, so the same layout always packs to the same bytes. */
const FIXED_MTIME = new Date(0);

export interface PackedArchive {
  /** SHA-256 (hex) of the tar, as written. */
  sha256: string;
  size: number;
}

/** The paths of a layout directory in archive order: sorted, directories before their content. */
export async function layoutEntries(root: string): Promise<{ name: string; dir: boolean }[]> {
  const blobs = (await readdir(join(root, 'blobs', 'sha256'))).filter((f) => /^[0-9a-f]{64}$/.test(f)).sort();
  return [
    { name: 'blobs', dir: true },
    { name: 'blobs/sha256', dir: true },
    ...blobs.map((hex) => ({ name: `blobs/sha256/${hex}`, dir: false })),
    { name: 'index.json', dir: false },
    { name: 'oci-layout', dir: false },
  ];
}

/**
 * Pack a flat OCI layout into `file`: sorted entries, fixed time, owner 0, fixed modes, so one
 * release gives byte-identical archives. Blobs are streamed from disk (memory stays flat). The tar
 * is written beside `file` and renamed into place, so a killed run never leaves a half archive.
 */
export async function packArchive(root: string, file: string): Promise<PackedArchive> {
  await mkdir(dirname(file), { recursive: true });
  const partial = `${file}.partial-${process.pid}`;
  const tar = pack();
  const hash = createHash('sha256');
  let size = 0;
  const counting = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  const written = pipeline(tar, counting, createWriteStream(partial));
  try {
    for (const entry of await layoutEntries(root)) {
      const header = {
        name: entry.dir ? `${entry.name}/` : entry.name,
        mtime: FIXED_MTIME,
        uid: 0,
        gid: 0,
        uname: '',
        gname: '',
      };
      if (entry.dir) {
        await new Promise<void>((resolve, reject) =>
          tar.entry({ ...header, type: 'directory', mode: 0o755 }, (e) => (e ? reject(e) : resolve())),
        );
        continue;
      }
      const path = join(root, entry.name);
      const { size: length } = await stat(path);
      await new Promise<void>((resolve, reject) => {
        const sink = tar.entry({ ...header, type: 'file', mode: 0o644, size: length }, (e) =>
          e ? reject(e) : resolve(),
        );
        createReadStream(path).on('error', reject).pipe(sink);
      });
    }
    tar.finalize();
    await written;
    await rename(partial, file);
  } catch (error) {
    tar.destroy();
    await rm(partial, { force: true });
    throw error;
  }
  return { sha256: hash.digest('hex'), size };
}

/**
 * Unpack an archive into `root`, streaming each entry to disk. Only the layout's own paths are
 * accepted: an entry outside the root (`..`, absolute) or of another kind refuses the archive.
 */
export async function unpackArchive(file: string, root: string): Promise<void> {
  await mkdir(root, { recursive: true });
  const reader = extract();
  const source = createReadStream(file);
  source.on('error', (error) => reader.destroy(error));
  source.pipe(reader);
  // tar-stream fails a tar cut short inside an entry on the reader but leaves that entry's body
  // open: each body is raced against the reader's failure, or it would wait for ever.
  const failed = new Promise<never>((_, reject) => reader.once('error', reject));
  failed.catch(() => {});
  try {
    // The async iterator is where every failure of the reader arrives, once (a truncated tar's
    // "unexpected end of data" included): no error is left to surface unhandled elsewhere.
    for await (const entry of reader) {
      const { header } = entry;
      const name = normalize(header.name).replace(/\/+$/, '');
      const inside = name !== '..' && !name.startsWith(`..${sep}`) && !name.startsWith(sep);
      if (!inside || (header.type !== 'file' && header.type !== 'directory'))
        throw new RuleError(
          'ARCHIVE_ENTRY_REFUSED',
          `${file}: entry "${header.name}" is not part of an OCI layout`,
        );
      const path = join(root, name);
      if (header.type === 'directory') {
        entry.resume();
        await mkdir(path, { recursive: true });
        continue;
      }
      await mkdir(dirname(path), { recursive: true });
      await Promise.race([pipeline(entry, createWriteStream(path)), failed]);
    }
  } finally {
    source.destroy();
  }
}
