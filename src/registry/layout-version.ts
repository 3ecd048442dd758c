import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { RuleError } from '../errors.ts';
import { printable } from '../text/printable.ts';
import { parseJson } from './oci-schema.ts';

// `oci-layout` is one line; anything larger is not one.
const MAX_BYTES = 4096;

/**
 * Hold a layout's `oci-layout` file to the image-layout versions this toolkit reads (1.x.y, the
 * OCI image spec's): a layout of a version it does not know may lay blobs out otherwise, and read
 * as ours it would be read wrong. A folder without the file is a layout not started yet (the
 * writer makes it). Refused with exit 1, before anything of the layout is read.
 */
export async function checkLayoutVersion(dir: string, name: string): Promise<void> {
  let text: string;
  try {
    const file = await open(join(dir, 'oci-layout'), 'r');
    try {
      const buffer = Buffer.alloc(MAX_BYTES + 1);
      const { bytesRead } = await file.read(buffer, 0, buffer.length, 0);
      text = bytesRead > MAX_BYTES ? '' : buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await file.close();
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const version = (parseJson(text) as { imageLayoutVersion?: unknown } | undefined)?.imageLayoutVersion;
  if (typeof version === 'string' && /^1\.\d+\.\d+$/.test(version)) return;
  throw new RuleError(
    'LAYOUT_VERSION_UNKNOWN',
    `${name}: oci-layout says imageLayoutVersion ${printable(JSON.stringify(version) ?? 'nothing', { max: 40 })}; this toolkit reads 1.x.y layouts only`,
    {
      hint: 'the layout was made by another tool or a newer spec: copy the images with a tool that reads it (skopeo copy), or make it again with release mirror',
    },
  );
}
