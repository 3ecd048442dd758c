import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { runRelease } from '../helpers/run-release.ts';
import { runBuildWeb } from './run-build-web.ts';

const work = mkdtempSync(join(tmpdir(), 'sr-web-build-'));
const cleanup: (() => void)[] = [() => rmSync(work, { recursive: true, force: true })];
afterAll(() => {
  for (const fn of cleanup) fn();
});

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
const metaOf = (html: string) =>
  /<meta name="service-client-version" content="([^"]*)" \/>/.exec(html)?.[1] ?? 'no meta tag';

describe('npm run build:web', () => {
  it('bakes SERVICE_CLIENT_VERSION into version.json and the meta tag, never into the bundle', async () => {
    const out = join(work, 'rc');
    const result = await runBuildWeb({
      outDir: out,
      cwd: work,
      env: { SERVICE_CLIENT_VERSION: ' v1.2.3-rc.1\n' },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`service-web build v1.2.3-rc.1 (source env) -> ${out}\n`);
    expect(JSON.parse(read(out, 'version.json'))).toEqual({ version: 'v1.2.3-rc.1' });
    const html = read(out, 'index.html');
    expect(metaOf(html)).toBe('v1.2.3-rc.1');
    // The charset declaration stays first in <head>.
    expect(html.indexOf('<meta charset')).toBeLessThan(html.indexOf('service-client-version'));
    const assets = readdirSync(join(out, 'assets'));
    const js = assets.find((f) => f.endsWith('.js'));
    expect(js).toBeDefined();
    // The script reads the version from the meta tag at run time: a release re-stamped
    // from an rc changes index.html and version.json only, the scripts stay the rc's bytes.
    expect(read(join(out, 'assets'), js!)).not.toContain('v1.2.3-rc.1');
    expect(read(join(out, 'assets'), js!)).toContain('service-client-version');
    // Relative asset URLs: the folder works from any static server and path prefix.
    expect(html).toContain(`src="./assets/${js}"`);
    // Nothing left behind beside the output (staging or old folders).
    expect(readdirSync(work).filter((f) => f.startsWith('rc'))).toEqual(['rc']);
  });

  it('gives unknown without the variable and without a stamp', async () => {
    const out = join(work, 'unknown');
    const result = await runBuildWeb({ outDir: out, cwd: work });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('service-web build unknown (source none)');
    expect(JSON.parse(read(out, 'version.json'))).toEqual({ version: 'unknown' });
    expect(metaOf(read(out, 'index.html'))).toBe('unknown');
  });

  it('falls back to dist/release.env written by release stamp', async () => {
    const repo = GitRepo.create('web-stamp-');
    cleanup.push(() => repo.remove());
    repo.commit('initial');
    repo.annotatedTag('v2.0.0-rc.3');
    const stamp = await runRelease(['stamp'], { cwd: repo.dir });
    expect(stamp.code, stamp.stderr).toBe(0);

    const out = join(repo.dir, 'dist', 'web');
    const result = await runBuildWeb({ outDir: out, cwd: repo.dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('service-web build v2.0.0-rc.3 (source release.env)');
    expect(JSON.parse(read(out, 'version.json'))).toEqual({ version: 'v2.0.0-rc.3' });

    // The variable wins over the stamp file.
    const again = await runBuildWeb({
      outDir: out,
      cwd: repo.dir,
      env: { SERVICE_CLIENT_VERSION: 'v2.0.0' },
    });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(read(out, 'version.json'))).toEqual({ version: 'v2.0.0' });
  });

  it.each([
    ['markup', '"><script>alert(1)</script>'],
    ['a space inside', 'v1.2.3 beta'],
    ['a control character', 'v1.2.3\u0007'],
    ['an overlong value', `v1.2.3-${'a'.repeat(200)}`],
  ])('refuses a version with %s (exit 2) and keeps the previous build', async (_, value) => {
    const out = join(work, `kept-${_.replace(/\W/g, '-')}`);
    expect(
      (await runBuildWeb({ outDir: out, cwd: work, env: { SERVICE_CLIENT_VERSION: 'v1.0.0' } })).code,
    ).toBe(0);

    const result = await runBuildWeb({ outDir: out, cwd: work, env: { SERVICE_CLIENT_VERSION: value } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('SERVICE_CLIENT_VERSION');
    expect(result.stderr).toContain('is not a version the web client can show');
    expect(result.stderr).toMatch(/^hint: /m);
    expect(result.stdout).toBe('');
    expect(JSON.parse(read(out, 'version.json'))).toEqual({ version: 'v1.0.0' });
    expect(read(out, 'index.html')).not.toContain('<script>alert');
  });

  it('refuses to replace a folder that is not a web build', async () => {
    const out = join(work, 'precious');
    mkdirSync(out);
    writeFileSync(join(out, 'notes.txt'), 'keep me');
    const result = await runBuildWeb({ outDir: out, cwd: work, env: { SERVICE_CLIENT_VERSION: 'v1.2.3' } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not empty and is not a web client build');
    expect(read(out, 'notes.txt')).toBe('keep me');
    expect(existsSync(join(out, 'index.html'))).toBe(false);
  });

  it('rejects an unknown flag with exit 2 and builds nothing', async () => {
    const out = join(work, 'flag');
    const result = await runBuildWeb({ outDir: out, cwd: work, args: ['--out'] });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown option '--out'/);
    expect(result.stderr).toContain('usage: build:web [--out-dir <dir>]');
    expect(existsSync(out)).toBe(false);
  });
});
