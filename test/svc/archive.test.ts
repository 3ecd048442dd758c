import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readPackageArchive } from '../../src/archives/read-package-archive.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { runRelease } from '../helpers/run-release.ts';
import { baseEnv, npmInstall, ROOT, run, Scratch, sha256Of, svcIn } from './support.ts';

// `npm run build:cli` in a project directory (never this checkout's dist/), then a real
// `npm install -g --prefix <tmp>` of what it wrote.
const scratch = new Scratch();
const TSX = join(ROOT, 'node_modules/.bin/tsx');
const BUILD_CLI = join(ROOT, 'src/service/svc/build/cli.ts');
const repos: GitRepo[] = [];

afterAll(() => {
  for (const repo of repos) repo.remove();
  scratch.cleanup();
});

function buildCli(cwd: string, env: Record<string, string | undefined> = {}) {
  return run(TSX, [BUILD_CLI], { cwd, env: { ...baseEnv(), ...env }, timeoutMs: 120_000 });
}

function project(name: string): string {
  const dir = scratch.path(name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

describe('npm run build:cli', () => {
  it('bakes SERVICE_VERSION into a one-file package with no dependencies that npm installs', async () => {
    const dir = project('env');
    const built = await buildCli(dir, { SERVICE_VERSION: ' v1.2.3 ' });
    expect(built.code, built.stderr).toBe(0);
    const archive = join(dir, 'dist/service-cli.tar.gz');
    expect(built.stdout).toContain(`wrote ${archive}: svc v1.2.3 (from SERVICE_VERSION)`);
    expect(built.stdout).toContain(sha256Of(archive));

    const entries = readPackageArchive(readFileSync(archive));
    expect(entries.map((e) => e.path).sort()).toEqual(['package.json', 'svc.js']);
    const manifest = JSON.parse(entries.find((e) => e.path === 'package.json')!.content.toString());
    expect(manifest).toMatchObject({
      name: 'service-cli',
      version: '1.2.3',
      serviceVersion: 'v1.2.3',
      bin: { svc: 'svc.js' },
    });
    expect(manifest.dependencies).toBeUndefined();
    // One self-contained file: nothing required but Node's own modules.
    const code = entries.find((e) => e.path === 'svc.js')!.content.toString();
    const required = [...code.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!);
    expect(required.length).toBeGreaterThan(0);
    expect(required.filter((name) => !name.startsWith('node:'))).toEqual([]);
    expect(code).not.toMatch(/\bimport\s*\(\s*"(?!node:)/);

    const prefix = scratch.path('prefix-env');
    expect((await npmInstall(prefix, archive)).code).toBe(0);
    expect((await run(svcIn(prefix), ['--version'], { env: baseEnv() })).stdout).toBe('svc v1.2.3\n');
    expect((await run(svcIn(prefix), ['-V'], { env: baseEnv() })).stdout).toBe('svc v1.2.3\n');
  });

  it('takes the version release stamp wrote when SERVICE_VERSION is unset', async () => {
    const repo = GitRepo.create('svc-stamp-');
    repos.push(repo);
    repo.commit('first');
    repo.annotatedTag('v2.0.0-rc.1');
    const stamped = await runRelease(['stamp'], { cwd: repo.dir });
    expect(stamped.code, stamped.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(repo.dir, 'dist/cli-version.json'), 'utf8')).version).toBe(
      'v2.0.0-rc.1',
    );

    const built = await buildCli(repo.dir);
    expect(built.code, built.stderr).toBe(0);
    const prefix = scratch.path('prefix-stamp');
    expect((await npmInstall(prefix, join(repo.dir, 'dist/service-cli.tar.gz'))).code).toBe(0);
    expect((await run(svcIn(prefix), ['--version'], { env: baseEnv() })).stdout).toBe('svc v2.0.0-rc.1\n');
  });

  it.each([
    [undefined, 'unknown', '0.0.0-dev.unknown'],
    ['v1.4.0-3-gabcdef0-dirty', 'v1.4.0-3-gabcdef0-dirty', '1.4.1-dev.3.gabcdef0.dirty'],
  ])(
    'SERVICE_VERSION=%s: npm gets a valid semver, svc keeps the real version',
    async (env, baked, npmVersion) => {
      const dir = project(`dev-${baked}`);
      expect((await buildCli(dir, { SERVICE_VERSION: env })).code).toBe(0);
      const prefix = scratch.path(`prefix-${baked}`);
      const installed = await npmInstall(prefix, join(dir, 'dist/service-cli.tar.gz'));
      expect(installed.code, installed.stderr).toBe(0);
      const manifest = JSON.parse(
        readFileSync(join(prefix, 'lib/node_modules/service-cli/package.json'), 'utf8'),
      );
      expect(manifest.version).toBe(npmVersion);
      expect((await run(svcIn(prefix), ['--version'], { env: baseEnv() })).stdout).toBe(`svc ${baked}\n`);
    },
  );

  it('is reproducible: the same version gives the same bytes', async () => {
    const a = project('repro-a');
    const b = project('repro-b');
    await Promise.all([
      buildCli(a, { SERVICE_VERSION: 'v3.0.0' }),
      buildCli(b, { SERVICE_VERSION: 'v3.0.0' }),
    ]);
    expect(sha256Of(join(a, 'dist/service-cli.tar.gz'))).toBe(sha256Of(join(b, 'dist/service-cli.tar.gz')));
  });

  it('refuses a version that cannot be printed safely, writing nothing (exit 2)', async () => {
    const dir = project('bad');
    const result = await buildCli(dir, { SERVICE_VERSION: 'v1.0.0\u001b[31m' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot be baked into svc/);
    expect(existsSync(join(dir, 'dist'))).toBe(false);
  });
});

describe('svc --version short-circuits', () => {
  // `net` is not in the list: Node itself loads it for a piped stdout.
  it('loads no http, TLS, process, compression or crypto module and reads no config', async () => {
    const dir = project('short');
    expect((await buildCli(dir, { SERVICE_VERSION: 'v1.0.0' })).code).toBe(0);
    const prefix = scratch.path('prefix-short');
    expect((await npmInstall(prefix, join(dir, 'dist/service-cli.tar.gz'))).code).toBe(0);
    // A broken config file: anything that read it would fail with exit 2.
    const home = scratch.path('broken-home');
    mkdirSync(join(home, '.config/svc'), { recursive: true });
    writeFileSync(join(home, '.config/svc/config.json'), '{ not json');
    const probe = scratch.path('loaded.cjs');
    writeFileSync(
      probe,
      "process.on('exit', () => require('node:fs').writeSync(2, '\\nLOADED ' + process.moduleLoadList.filter((m) => /^NativeModule (http|https|tls|child_process|zlib|crypto)$/.test(m)).join(',') + '\\n'));\n",
    );
    const env = {
      ...baseEnv({ home }),
      NODE_OPTIONS: `--require ${probe}`,
      SERVICE_API_URL: 'http://127.0.0.1:1',
    };

    const fast = await run(svcIn(prefix), ['--version'], { env });
    expect(fast.code).toBe(0);
    expect(fast.stdout).toBe('svc v1.0.0\n');
    expect(fast.stderr).toMatch(/^\nLOADED \n$/);

    // The controls: a real command reads the config (and trips over it), and loads http.
    const configured = await run(svcIn(prefix), ['status'], { env });
    expect(configured.code).toBe(2);
    expect(configured.stderr).toMatch(/config\.json is not JSON/);
    const networked = await run(svcIn(prefix), ['version'], {
      env: { ...env, HOME: scratch.path('empty-home') },
    });
    expect(networked.code).toBe(0);
    expect(networked.stderr).toMatch(/\nLOADED .*NativeModule http\b/);
  });
});
