import { gzipSync } from 'node:zlib';
import { tarBytes } from './tar-writer.ts';

/** The time npm gives every entry of a package tarball (1985-10-26T08:15:00Z), so equal files pack equally. */
export const NPM_PACK_MTIME = new Date('1985-10-26T08:15:00.000Z');

export interface PackageFile {
  /** Path inside the package (`package.json`, `lib/x.js`), without npm's `package/` folder. */
  path: string;
  content: Uint8Array;
  /** The file's mode (default 0644), packed as npm packs it with its usual umask: group and others lose write. */
  mode?: number;
}

/**
 * An npm package tarball of these files, in the shape `npm pack` writes and `npm install` reads:
 * a gzipped ustar of regular files only, each under `package/`, its mode less 0022, owner 0 and no
 * user names, npm's fixed time. Packed in process: an `npm pack` is a Node start and npm's own
 * module graph (about a second of CPU) for what is, once the files are chosen, a fixed format.
 * The caller chooses the files (a package built from known files, or an archive re-stamped
 * entry for entry), so npm's file selection (`files`, `.npmignore`) is not needed here.
 */
export async function packNpmPackage(files: readonly PackageFile[]): Promise<Buffer> {
  const tar = await tarBytes(async (writer) => {
    for (const file of files)
      await writer.add(
        {
          name: `package/${file.path}`,
          type: 'file',
          // npm keeps a file's mode less its umask (0022); special bits are dropped here too.
          mode: (file.mode ?? 0o644) & 0o755,
          mtime: NPM_PACK_MTIME,
          uid: 0,
          gid: 0,
          uname: '',
          gname: '',
          size: file.content.length,
        },
        Buffer.from(file.content.buffer, file.content.byteOffset, file.content.byteLength),
      );
  });
  return gzipSync(tar, { level: 9 });
}
