import { readTar, TarGzipError } from '../archives/tar-reader.ts';
import { RuleError } from '../errors.ts';

const MAX_UNPACKED = 256 * 1024 * 1024;

/**
 * The regular files of a gzipped tar (an npm package, a Python sdist, any CLI archive), by path,
 * to compare an rc's archive with its rebuild file by file. Directories are implied by the paths;
 * a link or device is refused (its target could differ while its bytes compare equal). Not for
 * image layers, which are full of links: oci-image/read-layer.ts reads those.
 */
export async function archiveFiles(gz: Uint8Array, what: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  let unpacked = 0;
  try {
    for await (const entry of readTar(gz, { gzip: true })) {
      const { header } = entry;
      const path = header.name.replace(/^\.?\/+/, '');
      if (header.type === 'file') {
        const content = await entry.bytes(MAX_UNPACKED - unpacked);
        unpacked += content.length;
        files.set(path, content);
      } else if (header.type !== 'directory') {
        // An image layer is read by oci-image/read-layer.ts, links and all; a CLI archive is
        // unpacked on users' machines, where a link could point anywhere.
        throw new Error(
          `it holds a ${header.type} entry ${path}: a CLI archive holds regular files only, since a link's target could differ while the bytes compare equal, and unpacked it could point outside the install folder`,
        );
      }
    }
  } catch (error) {
    if (error instanceof TarGzipError)
      throw new RuleError('CLI_ARCHIVE_INVALID', `${what} is not a gzip archive (${error.message})`);
    throw new RuleError('CLI_ARCHIVE_INVALID', `${what} is not a readable tar: ${(error as Error).message}`);
  }
  return files;
}
