import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmPack } from '../../src/archives/npm-pack.ts';
import { readPackageArchive } from '../../src/archives/read-package-archive.ts';
import { restampCliArchive } from '../../src/cli-package/restamp-archive.ts';
import { archiveOf, baseEnv, npmInstall, run, Scratch, svcIn } from '../svc/support.ts';

// Real archives built the way `release build` builds them, re-stamped, then installed by real npm.
const scratch = new Scratch();
let rc: Buffer;
let release: Buffer;

beforeAll(async () => {
  [rc, release] = await Promise.all([
    archiveOf('v2.0.0-rc.1', scratch.dir).then((path) => readFileSync(path)),
    archiveOf('v2.0.0', scratch.dir).then((path) => readFileSync(path)),
  ]);
}, 120_000);
afterAll(() => scratch.cleanup());

const file = (archive: Buffer, path: string) =>
  readPackageArchive(archive).find((e) => e.path === path)!.content;

describe('restampCliArchive', () => {
  it("gives exactly the bytes a build of the new version gives, svc.js unchanged from the rc's", async () => {
    const restamped = await restampCliArchive(rc, 'v2.0.0');
    expect(restamped.equals(release)).toBe(true);
    expect(file(restamped, 'svc.js').equals(file(rc, 'svc.js'))).toBe(true);
    expect(JSON.parse(file(restamped, 'package.json').toString())).toMatchObject({
      version: '2.0.0',
      serviceVersion: 'v2.0.0',
    });
    // The control: the two builds differ, and only in package.json.
    expect(rc.equals(release)).toBe(false);
    expect(file(rc, 'package.json').equals(file(release, 'package.json'))).toBe(false);
  }, 60_000);

  it('is reproducible, and re-stamping back gives the original bytes', async () => {
    const [a, b] = await Promise.all([restampCliArchive(rc, '3.1.4'), restampCliArchive(release, '3.1.4')]);
    expect(a.equals(b)).toBe(true);
    expect((await restampCliArchive(a, 'v2.0.0-rc.1')).equals(rc)).toBe(true);
  }, 60_000);

  it('installs with npm, and the svc prints the new version', async () => {
    const restamped = await restampCliArchive(rc, 'v2.0.0-4-gabcdef0');
    const path = scratch.path('restamped.tgz');
    writeFileSync(path, restamped);
    const prefix = scratch.path('prefix');
    const installed = await npmInstall(prefix, path);
    expect(installed.code, installed.stderr).toBe(0);
    const printed = await run(svcIn(prefix), ['--version'], { env: baseEnv() });
    expect(printed.stdout).toBe('svc v2.0.0-4-gabcdef0\n');
    const manifest = JSON.parse(
      readFileSync(join(prefix, 'lib/node_modules/service-cli/package.json'), 'utf8'),
    );
    expect(manifest.version).toBe('2.0.1-dev.4.gabcdef0');
  }, 120_000);

  it('refuses an unsafe version, a non-archive and another package', async () => {
    await expect(restampCliArchive(rc, 'v1\u001b[31m')).rejects.toMatchObject({
      code: 'CLI_VERSION_INVALID',
    });
    await expect(restampCliArchive(Buffer.from('not gzip'), 'v1.0.0')).rejects.toMatchObject({
      code: 'CLI_ARCHIVE_INVALID',
    });
  });

  it('re-versions any npm CLI: its package.json version, and its declared version files by format', async () => {
    const dir = scratch.path('acme-tool');
    const pkg = join(dir, 'package');
    mkdirSync(join(pkg, 'lib'), { recursive: true });
    writeFileSync(
      join(pkg, 'package.json'),
      JSON.stringify({ name: 'acme-tool', version: '2.0.0-rc.1', files: ['lib'] }),
    );
    writeFileSync(join(pkg, 'lib/VERSION'), 'v2.0.0-rc.1\n');
    writeFileSync(join(pkg, 'lib/code.js'), 'module.exports = 1;\n');
    const archive = readFileSync(join(dir, await npmPack(pkg, dir)));
    const out = await restampCliArchive(archive, 'v2.0.0', {}, [{ path: 'lib/VERSION', format: 'text' }]);
    expect(JSON.parse(file(out, 'package.json').toString())).toEqual({
      name: 'acme-tool',
      version: '2.0.0',
      files: ['lib'],
    });
    expect(file(out, 'lib/VERSION').toString()).toBe('v2.0.0\n');
    expect(file(out, 'lib/code.js').equals(file(archive, 'lib/code.js'))).toBe(true);
    await expect(
      restampCliArchive(archive, 'v2.0.0', {}, [{ path: 'lib/NOPE', format: 'text' }]),
    ).rejects.toMatchObject({ code: 'CLI_ARCHIVE_INVALID' });
  }, 60_000);
});
