import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { packedPackage } from '../helpers/packed-package.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/**
 * What `npm install service-release` may bring into an empty project (node_modules, on disk),
 * `yaml` (1.4 MB) included since `release init` reads Compose files and `release bump` writes
 * charts with a real YAML parser. The package ships the TypeScript of the reference service (and
 * what it imports) only: the toolkit's own is compiled in lib/ (test/package/shipped-sources.test.ts).
 */
const MAX_INSTALLED_MB = 60;

/**
 * `npm install service-release` into an empty project, as a team releasing its own service does:
 * only the runtime dependencies, none of the optional peers (vite builds our reference web
 * client, dockerode talks to a Docker engine). It must stay small, and the daemonless path must
 * work there: stamp, build --engine oci of a project of its own (fixtures/acme-oci), promote.
 */
describe('the package installed without its optional peers', () => {
  let repo: GitRepo;

  beforeAll(async () => {
    // The tarball `npm pack` makes (it runs the build), shared with installed-package.test.ts.
    const { tarball } = await packedPackage();
    repo = GitRepo.create('install-size-');
    cpSync(join(ROOT, 'fixtures/acme-oci'), repo.dir, { recursive: true });
    repo.write('package.json', JSON.stringify({ name: 'acme', private: true }));
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', tarball], {
      cwd: repo.dir,
      stdio: 'ignore',
      timeout: 240_000,
    });
    repo.commit('acme');
    repo.annotatedTag('v1.0.0');
  }, 600_000);

  afterAll(() => {
    repo?.remove();
  });

  const release = (args: string[]) =>
    spawnSync('npx', ['--no-install', 'release', ...args], {
      cwd: repo.dir,
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', CI: 'true' },
      timeout: 300_000,
    });

  it(`installs in at most ${MAX_INSTALLED_MB} MB, without vite, rollup or dockerode`, () => {
    const kb = Number(
      execFileSync('du', ['-sk', join(repo.dir, 'node_modules')], { encoding: 'utf8' }).split('\t')[0],
    );
    const mb = kb / 1024;
    console.log(`node_modules: ${mb.toFixed(1)} MB`);
    expect(mb).toBeLessThanOrEqual(MAX_INSTALLED_MB);
    for (const absent of ['vite', 'rollup', 'dockerode', '@grpc/grpc-js', 'protobufjs'])
      expect(existsSync(join(repo.dir, 'node_modules', absent)), absent).toBe(false);
  });

  it('stamps, builds acme-oci with the oci engine and promotes dev there', () => {
    const stamp = release(['stamp', '--json']);
    expect(stamp.status, stamp.stderr).toBe(0);
    const build = release(['build', '--engine', 'oci', '--json']);
    expect(build.status, build.stderr).toBe(0);
    expect(Object.keys(JSON.parse(build.stdout).images).sort()).toEqual(['api', 'web', 'worker']);
    const promote = release(['promote', '--channel', 'dev', '--json']);
    expect(promote.status, promote.stderr).toBe(0);
  });

  it('without vite, building the reference web client says to install it: exit 3, nothing staged', () => {
    // The reference service's build command, as its release.config.ts runs it.
    const script = join(repo.dir, 'node_modules/service-release/src/service/build/reference-build.js');
    const web = spawnSync(process.execPath, [script, 'image', 'web', 'dist/images/web-no-vite'], {
      cwd: repo.dir,
      encoding: 'utf8',
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '/tmp',
        SERVICE_VERSION: 'v1.0.0',
      },
      timeout: 120_000,
    });
    expect(web.status, web.stderr).toBe(3);
    expect(web.stderr).toContain('building the reference web client needs vite, which is not installed');
    expect(web.stderr).toContain('npm install --save-dev vite@7');
    expect(existsSync(join(repo.dir, 'dist/images/web-no-vite/app/web/index.html'))).toBe(false);
  });

  it('without dockerode, a build that may choose its engine builds without Docker and says why', () => {
    const build = release(['build', '--json']);
    expect(build.status, build.stderr).toBe(0);
    expect(JSON.parse(build.stdout).engineReason).toBe('dockerode is not installed; building without Docker');
    const dryRun = release(['build', '--dry-run']);
    expect(dryRun.status, dryRun.stderr).toBe(0);
  });
});
