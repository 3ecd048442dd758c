import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/registry/open-store.ts';
import { fixtureProject, layerFiles } from '../fixtures/fixture-project.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';

// A web whose build runs a tool its dependencies install (as `vite` is installed by `npm ci`):
// fixtures/baked-service's web built through `npm run build-web`, whose script calls `bake-web`,
// the bin of a devDependency (a local package, so npm needs no network). The user's tree has
// node_modules; the rebuild's fresh checkout of the rc's commit has not. The release from the rc
// rebuilds it after the default setup (`npm ci`, for the package-lock.json), and proves it; with
// the setup declared away the tool is missing, and the error names the kept checkout, which exists.

const RC = 'v2.0.0-rc.1';
const RELEASE = 'v2.0.0';
const NPM_ENV = { npm_config_audit: 'false', npm_config_fund: 'false', npm_config_offline: 'true' };

describe('a rebuild whose build needs its dependencies installed', () => {
  let repo: GitRepo;
  const release = (args: string[], config?: string): Promise<RunResult> =>
    runRelease([...args, ...(config ? ['--config', config] : []), '--json'], {
      cwd: repo.dir,
      env: { RELEASE_SIGNING_PASSPHRASE: 'setup-only-passphrase', ...NPM_ENV },
      timeoutMs: 240_000,
    });
  const ok = async (args: string[]) => {
    const result = await release(args);
    expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
    return jsonOf<Record<string, unknown>>(result);
  };

  beforeAll(async () => {
    repo = fixtureProject('baked-service');
    const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8'));
    config.artifacts.web.build = { command: ['npm', 'run', 'build-web'] };
    repo.write('release.config.json', JSON.stringify(config));
    mkdirSync(join(repo.dir, 'tools/bake-web'), { recursive: true });
    repo.write(
      'tools/bake-web/package.json',
      JSON.stringify({ name: 'bake-web', version: '1.0.0', bin: { 'bake-web': 'bin.js' } }),
    );
    repo.write(
      'tools/bake-web/bin.js',
      "#!/usr/bin/env node\nrequire('node:child_process').execFileSync('sh', ['scripts/build-web.sh'], { stdio: 'inherit' });\n",
    );
    repo.write(
      'package.json',
      JSON.stringify({
        name: 'baked-service',
        private: true,
        scripts: { 'build-web': 'bake-web' },
        devDependencies: { 'bake-web': 'file:tools/bake-web' },
      }),
    );
    // What the user did in their own tree: node_modules (ignored) and the lockfile (committed).
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund'], {
      cwd: repo.dir,
      env: { ...process.env, ...NPM_ENV },
      stdio: 'ignore',
    });
    expect(existsSync(join(repo.dir, 'package-lock.json'))).toBe(true);
    repo.commit('web built by a tool from its dependencies');
    repo.tag(RC);
    await ok(['stamp']);
    const built = await ok(['build', '--engine', 'oci']);
    expect(built['reversion']).toMatchObject({ web: { strategy: 'rebuild' } });
    await ok(['keygen', '--out', 'keys']);
    await ok(['promote', '--channel', 'rc']);
    repo.tag(RELEASE);
  }, 300_000);
  afterAll(() => repo?.remove());

  it('without its setup the tool is missing: refused, naming the kept checkout, which exists', async () => {
    const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8'));
    config.artifacts.web.build.setup = [];
    writeFileSync(join(repo.dir, 'no-setup.config.json'), JSON.stringify(config));
    const refused = await release(
      ['promote', '--channel', 'release', '--from', RC, '--version', RELEASE],
      'no-setup.config.json',
    );
    expect(refused.code, refused.stderr).toBe(3);
    const error = jsonOf<{ error: { code: string; message: string; hint: string } }>(refused).error;
    expect(error.code).toBe('BUILD_COMMAND_FAILED');
    expect(error.message).toMatch(/bake-web: not found/);
    const kept = /kept at (\S+):/.exec(error.hint)?.[1];
    expect(kept, error.hint).toBeDefined();
    expect(existsSync(join(kept!, 'package-lock.json'))).toBe(true);
    const tree = /git worktree remove --force (\S+)`/.exec(error.hint)![1]!;
    expect(execFileSync('git', ['worktree', 'list'], { cwd: repo.dir, encoding: 'utf8' })).toContain(tree);
    execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: repo.dir });
  }, 240_000);

  it("releases from the rc by a rebuild after the default npm ci, its files the release's", async () => {
    const out = await ok(['promote', '--channel', 'release', '--from', RC, '--version', RELEASE]);
    expect(out['imageRebuilds']).toMatchObject({ web: { strategy: 'rebuild', equal: true } });
    const store = openStore('oci-layout:.release/oci', { cwd: repo.dir, env: {} });
    const manifest = JSON.parse(
      Buffer.from((await store.getManifest('baked-web', RELEASE))!.bytes).toString(),
    );
    const files = await layerFiles(await store.getBlob('baked-web', manifest.layers.at(-1).digest));
    expect(files.get('srv/web/app.js')!.toString()).toContain(`'${RELEASE}'`);
    expect(files.get('srv/web/index.html')!.toString()).toContain(`<title>baked ${RELEASE}</title>`);
    // The checkout is gone once the rebuild is read.
    expect(
      execFileSync('git', ['worktree', 'list'], { cwd: repo.dir, encoding: 'utf8' }).trim().split('\n'),
    ).toHaveLength(1);
  }, 240_000);
});
