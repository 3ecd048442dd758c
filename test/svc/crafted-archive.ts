import { gzipSync } from 'node:zlib';

// npm pack cannot make a hostile archive: these are written by hand, as ustar entries, the way an
// attacker's server would serve them.

export interface TarEntry {
  name: string;
  /** '0' file (default), '1' hard link, '2' symlink, '5' directory, 'x' pax header. */
  type?: string;
  content?: string | Buffer;
  linkname?: string;
}

export function craftedArchive(entries: TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const content = Buffer.from(entry.content ?? '');
    const header = Buffer.alloc(512);
    header.write(entry.name, 0, 100, 'utf8');
    header.write(entry.type === '5' ? '0000755\0' : '0000644\0', 100);
    header.write('0000000\0', 108);
    header.write('0000000\0', 116);
    header.write(`${content.length.toString(8).padStart(11, '0')}\0`, 124);
    header.write('14000000000\0', 136);
    header.write('        ', 148);
    header.write(entry.type ?? '0', 156);
    if (entry.linkname) header.write(entry.linkname, 157, 100, 'utf8');
    header.write('ustar\0', 257);
    header.write('00', 263);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    blocks.push(header, content, Buffer.alloc((512 - (content.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

/** A pax extended header record list (`<len> key=value\n` each). */
export function paxRecords(records: Record<string, string>): string {
  return Object.entries(records)
    .map(([key, value]) => {
      const body = ` ${key}=${value}\n`;
      let length = body.length + 1;
      while (`${length}${body}`.length !== length) length = `${length}${body}`.length;
      return `${length}${body}`;
    })
    .join('');
}

export const packageJson = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: 'service-cli', version: '9.9.9', bin: { svc: 'svc.js' }, ...extra });

/** A svc.js that prints a version, and one that cannot start. */
export const goodSvc = (version: string) => `#!/usr/bin/env node\nconsole.log("svc ${version}")\n`;
export const brokenSvc = '#!/usr/bin/env node\nthrow new Error("broken build")\n';
