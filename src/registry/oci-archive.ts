import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readTar } from '../archives/tar-reader.ts';
import { TarWriter } from '../archives/tar-writer.ts';
import { RuleError } from '../errors.ts';
import { printable } from '../text/printable.ts';
import { MAX_INDEX_BYTES } from './flat-layout-store.ts';

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
  const tar = new TarWriter();
  const hash = createHash('sha256');
  let size = 0;
  const counting = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  const written = pipeline(tar.output, counting, createWriteStream(partial));
  try {
    for (const entry of await layoutEntries(root)) {
      const header = { name: entry.name, mtime: FIXED_MTIME, uid: 0, gid: 0, uname: '', gname: '' };
      if (entry.dir) {
        await tar.add({ ...header, type: 'directory', mode: 0o755 });
        continue;
      }
      const path = join(root, entry.name);
      const { size: length } = await stat(path);
      await tar.add({ ...header, type: 'file', mode: 0o644, size: length }, createReadStream(path));
    }
    tar.finish();
    await written;
    await rename(partial, file);
  } catch (error) {
    tar.destroy();
    await rm(partial, { force: true });
    throw error;
  }
  return { sha256: hash.digest('hex'), size };
}

/** The only paths an archive of an OCI layout holds (`./` prefixes and trailing slashes aside). */
const LAYOUT_DIRS = new Set(['blobs', 'blobs/sha256']);
const LAYOUT_FILES = /^(?:index\.json|oci-layout|blobs\/sha256\/[0-9a-f]{64})$/;
/** `oci-layout` is one line; `index.json` names tags (see MAX_INDEX_BYTES). */
const SMALL_FILES: Record<string, number> = { 'oci-layout': 4096, 'index.json': MAX_INDEX_BYTES };

/**
 * Unpack an archive into `root`, streaming each entry to disk. Only the layout's own paths are
 * accepted (`oci-layout`, `index.json`, `blobs/sha256/<64 hex>` and their directories): any other
 * entry (`junk/x`, `..`, an absolute path, a link, another digest algorithm) refuses the archive at
 * that entry, before its body is read; so does an `index.json` over its size limit, and an archive
 * that ends without `oci-layout` and `index.json` (an empty or all-zero tar) is not a layout.
 */
export async function unpackArchive(file: string, root: string): Promise<void> {
  await mkdir(root, { recursive: true });
  const found = new Set<string>();
  for await (const entry of readTar(createReadStream(file), { gzip: false })) {
    const { header } = entry;
    const name = posix.normalize(header.name).replace(/\/+$/, '');
    const kind =
      header.type === 'directory' ? LAYOUT_DIRS.has(name) : header.type === 'file' && LAYOUT_FILES.test(name);
    if (!kind)
      throw new RuleError(
        'ARCHIVE_ENTRY_REFUSED',
        `${file}: entry "${printable(header.name)}" is not part of an OCI layout`,
        {
          hint: 'an archive of release mirror holds oci-layout, index.json and blobs/sha256/<digest> only; make it again with release mirror --to oci-archive:<file>',
        },
      );
    const limit = SMALL_FILES[name];
    if (limit !== undefined && (header.size ?? 0) > limit)
      throw new RuleError(
        'ARCHIVE_ENTRY_REFUSED',
        `${file}: ${name} is ${header.size} bytes, over the ${limit}-byte limit`,
        {
          hint: 'the archive was not made by release mirror; do not load it',
        },
      );
    found.add(name);
    const path = join(root, name);
    if (header.type === 'directory') {
      await mkdir(path, { recursive: true });
      continue;
    }
    await mkdir(dirname(path), { recursive: true });
    await entry.pipeTo(createWriteStream(path));
  }
  const missing = ['oci-layout', 'index.json'].filter((f) => !found.has(f));
  if (missing.length)
    throw new RuleError(
      'ARCHIVE_NOT_A_LAYOUT',
      `${file} is not an OCI layout: it has no ${missing.join(' and no ')}`,
      {
        hint: 'name an archive made by release mirror --to oci-archive:<file>, or by skopeo copy ... oci-archive:<file>',
      },
    );
}
