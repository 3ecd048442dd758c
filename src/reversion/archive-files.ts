import { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { extract } from 'tar-stream';
import { RuleError } from '../errors.ts';

const MAX_UNPACKED = 256 * 1024 * 1024;

/**
 * The regular files of a gzipped tar (an npm package, a Python sdist, any CLI archive), by path,
 * to compare an rc's archive with its rebuild file by file. Directories are implied by the paths;
 * a link or device is refused (its target could differ while its bytes compare equal). Not for
 * image layers, which are full of links: oci-image/read-layer.ts reads those.
 */
export async function archiveFiles(gz: Uint8Array, what: string): Promise<Map<string, Buffer>> {
  let tar: Buffer;
  try {
    tar = gunzipSync(gz, { maxOutputLength: MAX_UNPACKED });
  } catch (error) {
    throw new RuleError('CLI_ARCHIVE_INVALID', `${what} is not a gzip archive (${(error as Error).message})`);
  }
  const files = new Map<string, Buffer>();
  const reader = extract();
  reader.on('entry', (header, stream, next) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
    stream.on('end', () => {
      const path = header.name.replace(/^\.?\/+/, '');
      if (header.type === 'file') files.set(path, Buffer.concat(chunks));
      else if (header.type !== 'directory') {
        // An image layer is read by oci-image/read-layer.ts, links and all; a CLI archive is
        // unpacked on users' machines, where a link could point anywhere.
        next(
          new Error(
            `it holds a ${header.type} entry ${path}: a CLI archive holds regular files only, since a link's target could differ while the bytes compare equal, and unpacked it could point outside the install folder`,
          ),
        );
        return;
      }
      next();
    });
    stream.resume();
  });
  await new Promise<void>((resolve, reject) => {
    reader.on('finish', resolve);
    reader.on('error', (error) =>
      reject(new RuleError('CLI_ARCHIVE_INVALID', `${what} is not a readable tar: ${error.message}`)),
    );
    Readable.from([tar]).pipe(reader);
  });
  return files;
}
