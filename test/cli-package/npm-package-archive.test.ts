import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { npmPack } from '../../src/archives/npm-pack.ts';
import { packNpmPackage } from '../../src/archives/npm-package-archive.ts';
import { readPackageArchive } from '../../src/archives/read-package-archive.ts';
import { Scratch } from '../svc/support.ts';

const scratch = new Scratch();
afterAll(() => scratch.cleanup());

/** Each entry's header fields npm's reader acts on, by name, from a gzipped tar. */
function headers(gz: Buffer) {
  const tar = gunzipSync(gz);
  const out: Record<
    string,
    { mode: string; uid: string; gid: string; mtime: string; type: string; magic: string }
  > = {};
  for (let at = 0; at + 512 <= tar.length; ) {
    const h = tar.subarray(at, at + 512);
    if (h.every((b) => b === 0)) break;
    const field = (start: number, length: number) =>
      h
        .subarray(start, start + length)
        .toString('latin1')
        .replace(/\0.*$/s, '')
        .trim();
    const size = Number.parseInt(field(124, 12), 8);
    out[field(0, 100)] = {
      mode: Number.parseInt(field(100, 8), 8).toString(8),
      // node-tar leaves owner fields empty, tar-stream writes zeros: either is root to a reader.
      uid: String(Number.parseInt(field(108, 8) || '0', 8)),
      gid: String(Number.parseInt(field(116, 8) || '0', 8)),
      mtime: String(Number.parseInt(field(136, 12), 8)),
      type: field(156, 1) || '0',
      magic: field(257, 6),
    };
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return out;
}

describe('packNpmPackage', () => {
  it('packs what npm pack packs from the same files: names, modes, owner, time, contents', async () => {
    const dir = scratch.dir;
    const pkg = `${dir}/package`;
    mkdirSync(`${pkg}/lib`, { recursive: true });
    const manifest = `${JSON.stringify({ name: 'acme-cli', version: '0.31.3', bin: { acme: 'bin.js' } }, null, 2)}\n`;
    writeFileSync(`${pkg}/package.json`, manifest);
    writeFileSync(`${pkg}/bin.js`, '#!/usr/bin/env node\nrequire("./lib/x.js");\n');
    chmodSync(`${pkg}/bin.js`, 0o775);
    writeFileSync(`${pkg}/lib/x.js`, 'module.exports = 1;\n');
    chmodSync(`${pkg}/lib/x.js`, 0o600);
    const theirs = readFileSync(`${dir}/${await npmPack(pkg, dir)}`);

    const ours = await packNpmPackage([
      { path: 'package.json', content: Buffer.from(manifest) },
      { path: 'bin.js', content: readFileSync(`${pkg}/bin.js`), mode: 0o775 },
      { path: 'lib/x.js', content: readFileSync(`${pkg}/lib/x.js`), mode: 0o600 },
    ]);

    const byPath = (gz: Buffer) =>
      Object.fromEntries(
        readPackageArchive(gz).map((e) => [e.path, { mode: e.mode, content: e.content.toString() }]),
      );
    expect(byPath(ours)).toEqual(byPath(theirs));
    expect(byPath(ours)['bin.js']!.mode).toBe(0o755);
    expect(byPath(ours)['lib/x.js']!.mode).toBe(0o600);
    expect(byPath(ours)['package.json']!.mode).toBe(0o644);
    expect(headers(ours)).toEqual(headers(theirs));
    // Equal files, equal bytes: what a re-stamp's reproducibility rests on.
    expect(
      (await packNpmPackage([{ path: 'package.json', content: Buffer.from(manifest) }])).equals(
        await packNpmPackage([{ path: 'package.json', content: Buffer.from(manifest) }]),
      ),
    ).toBe(true);
  }, 60_000);
});
