import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

const cleanup: (() => void)[] = [];
afterAll(() => {
  for (const fn of cleanup) fn();
});

function repo(): GitRepo {
  const r = GitRepo.create('stamp-');
  cleanup.push(() => r.remove());
  return r;
}

/** A repo tagged v1.4.0 with `after` commits on top. */
function taggedRepo(after: number, tag = 'v1.4.0'): GitRepo {
  const r = repo();
  r.commit('initial');
  r.annotatedTag(tag);
  for (let i = 0; i < after; i++) r.commit(`after ${i}`);
  return r;
}

const read = (r: GitRepo, path: string) => readFileSync(join(r.dir, path), 'utf8');
const readJson = (r: GitRepo, path: string) => JSON.parse(read(r, path));

describe('release stamp', () => {
  it('gives a describe version on the dev channel three commits after a tag', async () => {
    const r = taggedRepo(3);
    const result = await runRelease(['stamp', '--json'], { cwd: r.dir });
    expect(result.code).toBe(0);
    const out = jsonOf(result);
    const short = r.git('rev-parse', '--short', 'HEAD');
    expect(out).toMatchObject({
      version: `v1.4.0-3-g${short}`,
      tag: `v1.4.0-3-g${short}`,
      channel: 'dev',
      source: 'git',
      commit: r.head(),
      dirty: false,
    });
    expect((out['references'] as Record<string, string[]>)['api']).toEqual([
      'oci-layout:.release/oci/service-api:dev',
      `oci-layout:.release/oci/service-api:sha-${r.head().slice(0, 12)}`,
    ]);
  });

  it('gives the release channel on the tag itself and writes every file', async () => {
    const r = taggedRepo(0);
    const result = await runRelease(['stamp', '--json'], { cwd: r.dir });
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toMatchObject({
      version: 'v1.4.0',
      tag: 'v1.4.0',
      channel: 'release',
      source: 'git',
    });

    expect(read(r, 'dist/release.env')).toBe('SERVICE_VERSION=v1.4.0\nSERVICE_CLIENT_VERSION=v1.4.0\n');
    expect(readJson(r, 'dist/build-args.json')).toEqual({
      api: { SERVICE_VERSION: 'v1.4.0' },
      worker: { SERVICE_VERSION: 'v1.4.0' },
      web: { SERVICE_CLIENT_VERSION: 'v1.4.0' },
    });
    expect(readJson(r, 'dist/cli-version.json')).toEqual({ name: 'service-cli', version: 'v1.4.0' });
    const record = readJson(r, 'dist/release.json');
    expect(record).toMatchObject({
      schemaVersion: 1,
      version: 'v1.4.0',
      tag: 'v1.4.0',
      channel: 'release',
      source: 'git',
      commit: r.head(),
      dirty: false,
      commitTime: Number(r.git('show', '-s', '--format=%ct', 'HEAD')),
    });
    expect(record.artifacts.web.references).toEqual([
      'oci-layout:.release/oci/service-web:v1.4.0',
      'oci-layout:.release/oci/service-web:latest',
    ]);
    expect(record.artifacts.cli).toEqual({ package: 'service-cli', version: 'v1.4.0' });
  });

  it('tags a release tagged without v as written: no v added (plain semver and CalVer)', async () => {
    for (const tag of ['1.4.0', '2026.7.0']) {
      const r = taggedRepo(0, tag);
      const out = jsonOf(await runRelease(['stamp', '--json'], { cwd: r.dir }));
      expect(out).toMatchObject({ version: tag, tag, channel: 'release' });
    }
  });

  it('takes SERVICE_VERSION over git: an rc from the environment', async () => {
    const r = taggedRepo(3);
    const out = jsonOf(
      await runRelease(['stamp', '--json'], { cwd: r.dir, env: { SERVICE_VERSION: 'v2.0.0-rc.1' } }),
    );
    expect(out).toMatchObject({
      version: 'v2.0.0-rc.1',
      tag: 'v2.0.0-rc.1',
      channel: 'rc',
      source: 'env',
      commit: r.head(),
    });
    expect(readJson(r, 'dist/release.json').artifacts.api.references).toEqual([
      'oci-layout:.release/oci/service-api:v2.0.0-rc.1',
    ]);
  });

  it('appends the outputs to GITHUB_OUTPUT and honours --env-file', async () => {
    const r = taggedRepo(0);
    const outputs = join(r.dir, 'gh-output.txt');
    writeFileSync(outputs, 'earlier=1\n');
    // A previous stamp's env file at the same path must be replaced, never read back as input
    // (Node 20 would load a file named by `--env-file` into the environment if it saw the flag).
    mkdirSync(join(r.dir, 'build'));
    writeFileSync(join(r.dir, 'build/service.env'), 'SERVICE_VERSION=v9.9.9\n');
    // A real process: Node's own reading of `--env-file`, and what reaches stdout vs stderr.
    const result = await runRelease(['stamp', '--env-file', 'build/service.env'], {
      cwd: r.dir,
      env: { GITHUB_OUTPUT: outputs },
      subprocess: true,
    });
    expect(result.code).toBe(0);
    expect(read(r, 'gh-output.txt')).toBe(
      `earlier=1\nversion=v1.4.0\ntag=v1.4.0\nchannel=release\nsource=git\ncommit=${r.head()}\ndirty=false\n`,
    );
    expect(read(r, 'build/service.env')).toBe('SERVICE_VERSION=v1.4.0\nSERVICE_CLIENT_VERSION=v1.4.0\n');
    expect(existsSync(join(r.dir, 'dist/release.env'))).toBe(false);
    expect(result.stdout).toContain('v1.4.0  channel release  from git');
    // Progress lines (CI's plain renderer) go to stderr; stdout is only the summary.
    expect(result.stderr).toContain('Resolve the version');
    expect(result.stdout).not.toContain('Resolve the version');
  });

  it("gives the service's own version variables the tag in the dotenv, build args, GITHUB_OUTPUT and --json", async () => {
    const r = taggedRepo(0);
    writeFileSync(
      join(r.dir, 'release.config.json'),
      JSON.stringify({
        versionVariables: { server: ['ACME_VERSION'], client: ['VITE_ACME_VERSION'] },
        artifacts: { api: { image: 'acme-app' }, worker: { image: 'acme-app', command: ['acme', 'work'] } },
      }),
    );
    r.git('add', '.');
    r.git('commit', '-q', '-m', 'config');
    r.git('tag', '-f', 'v1.4.0');
    const outputs = join(r.dir, 'gh-output.txt');
    const out = jsonOf(
      await runRelease(['stamp', '--json'], { cwd: r.dir, env: { GITHUB_OUTPUT: outputs } }),
    );
    expect(out).toMatchObject({ tag: 'v1.4.0', ACME_VERSION: 'v1.4.0', VITE_ACME_VERSION: 'v1.4.0' });
    expect(read(r, 'gh-output.txt')).toContain('\nACME_VERSION=v1.4.0\nVITE_ACME_VERSION=v1.4.0\n');
    expect(read(r, 'dist/release.env')).toBe(
      'SERVICE_VERSION=v1.4.0\nACME_VERSION=v1.4.0\nSERVICE_CLIENT_VERSION=v1.4.0\nVITE_ACME_VERSION=v1.4.0\n',
    );
    expect(readJson(r, 'dist/build-args.json').api).toEqual({
      SERVICE_VERSION: 'v1.4.0',
      ACME_VERSION: 'v1.4.0',
    });
    expect(readJson(r, 'dist/build-args.json').web).toEqual({
      SERVICE_CLIENT_VERSION: 'v1.4.0',
      VITE_ACME_VERSION: 'v1.4.0',
    });
  });

  it('keeps the commit when the caller has EDITOR, PAGER or GIT_ASKPASS set', async () => {
    const r = taggedRepo(1);
    const out = jsonOf(
      await runRelease(['stamp', '--json'], {
        cwd: r.dir,
        env: { EDITOR: 'vim', PAGER: 'less', GIT_ASKPASS: '/bin/true' },
        // git is started with the process's own environment, so the variables must be the process's.
        subprocess: true,
      }),
    );
    expect(out['commit']).toBe(r.head());
    expect(readJson(r, 'dist/release.json').commitTime).toBe(
      Number(r.git('show', '-s', '--format=%ct', 'HEAD')),
    );
  });

  it('resolves config paths against the config file, --env-file against the caller', async () => {
    const r = taggedRepo(0);
    mkdirSync(join(r.dir, 'ci'));
    r.write('ci/release.json', JSON.stringify({ record: 'out/record.json' }));
    const result = await runRelease(['stamp', '--config', 'ci/release.json', '--env-file', 'here.env'], {
      cwd: r.dir,
    });
    expect(result.code).toBe(0);
    expect(readJson(r, 'ci/out/record.json').tag).toBe('v1.4.0');
    expect(existsSync(join(r.dir, 'ci/out/build-args.json'))).toBe(true);
    expect(read(r, 'here.env')).toContain('SERVICE_VERSION=v1.4.0');
  });

  it('marks a dirty tree and puts it on the dev channel', async () => {
    const r = taggedRepo(0);
    r.makeDirty();
    const out = jsonOf(await runRelease(['stamp', '--json'], { cwd: r.dir }));
    expect(out).toMatchObject({ version: 'v1.4.0-dirty', channel: 'dev', dirty: true });
  });

  it('writes nothing with --dry-run', async () => {
    const r = taggedRepo(0);
    const result = await runRelease(['stamp', '--dry-run', '--json'], { cwd: r.dir });
    expect(result.code).toBe(0);
    expect(jsonOf(result)).toMatchObject({ tag: 'v1.4.0', dryRun: true, files: [] });
    expect(existsSync(join(r.dir, 'dist'))).toBe(false);
  });

  it('warns with the fix in a shallow clone with no reachable tag', async () => {
    const origin = taggedRepo(2);
    const clone = origin.shallowClone();
    cleanup.push(() => clone.remove());
    const result = await runRelease(['stamp', '--json'], { cwd: clone.dir });
    expect(result.code).toBe(0);
    const out = jsonOf<{ version: string; warnings: string[] }>(result);
    expect(out.version).toMatch(/^[0-9a-f]{7,}$/);
    expect(out.warnings.join('\n')).toMatch(/shallow clone.*git fetch --tags --unshallow/);
    expect(result.stderr).toMatch(/warning: .*shallow/);
  });

  it('gives unknown outside a repository', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sr-stamp-norepo-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const out = jsonOf(await runRelease(['stamp', '--json'], { cwd: dir }));
    expect(out).toMatchObject({
      version: 'unknown',
      tag: 'unknown',
      channel: 'dev',
      source: 'none',
      commit: null,
    });
  });

  it('reads a config file and reports every config problem at once (exit 2)', async () => {
    const r = taggedRepo(0);
    r.write(
      'release.config.json',
      JSON.stringify({ registry: '127.0.0.1:5000/acme', artifacts: { api: { image: 'acme-api' } } }),
    );
    const out = jsonOf<{ references: Record<string, string[]> }>(
      await runRelease(['stamp', '--json'], { cwd: r.dir }),
    );
    expect(out.references['api']).toEqual([
      '127.0.0.1:5000/acme/acme-api:v1.4.0',
      '127.0.0.1:5000/acme/acme-api:latest',
    ]);

    r.write('release.config.json', JSON.stringify({ registry: '%%', extra: 1 }));
    const bad = await runRelease(['stamp'], { cwd: r.dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/registry: expected a registry/);
    expect(bad.stderr).toMatch(/extra: unknown key/);
  });
});

describe('release stamp refusals', () => {
  // Each refusal: exit code, a message, a hint, and the files of an earlier good stamp untouched.
  const cases: {
    name: string;
    setup: () => GitRepo;
    args: string[];
    env?: Record<string, string>;
    code: number;
    message: RegExp;
  }[] = [
    {
      name: 'rc channel for a release version',
      setup: () => taggedRepo(0),
      args: ['--channel', 'rc'],
      code: 1,
      message: /rc channel.*release version.*vX\.Y\.Z-rc\.N/,
    },
    {
      name: 'release channel for a describe version',
      setup: () => taggedRepo(2),
      args: ['--channel', 'release'],
      code: 1,
      message: /describe version.*takes only vX\.Y\.Z/,
    },
    {
      name: 'release channel for an rc',
      setup: () => taggedRepo(0, 'v1.4.0-rc.2'),
      args: ['--channel', 'release'],
      code: 1,
      message: /rc version/,
    },
    {
      name: 'release channel from a dirty tree',
      setup: () => taggedRepo(0).makeDirty(),
      args: ['--channel', 'release'],
      code: 1,
      message: /dirty tree/,
    },
    {
      name: 'rc channel from a dirty tree with SERVICE_VERSION',
      setup: () => taggedRepo(0).makeDirty(),
      args: ['--channel', 'rc'],
      env: { SERVICE_VERSION: 'v2.0.0-rc.1' },
      code: 1,
      message: /dirty tree/,
    },
    {
      name: 'rc channel with no version at all',
      setup: () => repo(),
      args: ['--channel', 'rc'],
      code: 1,
      message: /unknown/,
    },
    {
      name: 'SERVICE_VERSION with whitespace inside',
      setup: () => taggedRepo(0),
      args: [],
      env: { SERVICE_VERSION: 'v1.2.3 beta' },
      code: 2,
      message: /whitespace or control characters/,
    },
    {
      name: 'SERVICE_VERSION with a control character',
      setup: () => taggedRepo(0),
      args: [],
      env: { SERVICE_VERSION: 'v1.2.3\u001b[31m' },
      code: 2,
      message: /whitespace or control characters/,
    },
    {
      name: 'SERVICE_VERSION that is not a valid image tag',
      setup: () => taggedRepo(0),
      args: [],
      env: { SERVICE_VERSION: 'v1.2.3+build.7' },
      code: 2,
      message: /not a valid image tag/,
    },
    {
      name: 'SERVICE_VERSION longer than a tag may be',
      setup: () => taggedRepo(0),
      args: [],
      env: { SERVICE_VERSION: `v${'9'.repeat(130)}` },
      code: 2,
      message: /not a valid image tag/,
    },
    {
      name: 'an unknown channel',
      setup: () => taggedRepo(0),
      args: ['--channel', 'beta'],
      code: 2,
      message: /invalid|choices/i,
    },
  ];

  it.each(cases)('refuses: $name', async ({ setup, args, env, code, message }) => {
    const r = setup();
    // An earlier good stamp, which the refused one must leave exactly as it was.
    mkdirSync(join(r.dir, 'dist'), { recursive: true });
    writeFileSync(join(r.dir, 'dist/release.json'), '{"earlier": true}\n');
    const result = await runRelease(['stamp', ...args], { cwd: r.dir, ...(env ? { env } : {}) });
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    if (code !== 2 || !args.includes('beta')) expect(result.stderr).toMatch(/^hint: /m);
    expect(read(r, 'dist/release.json')).toBe('{"earlier": true}\n');
    for (const file of ['release.env', 'build-args.json', 'cli-version.json']) {
      expect(existsSync(join(r.dir, 'dist', file))).toBe(false);
    }
  });

  it('prints a refusal as JSON with its code under --json', async () => {
    const r = taggedRepo(2);
    const result = await runRelease(['stamp', '--channel', 'release', '--json'], { cwd: r.dir });
    expect(result.code).toBe(1);
    expect(jsonOf(result)).toMatchObject({ error: { code: 'CHANNEL_REFUSED', exitCode: 1 } });
  });

  it('never echoes a control character from SERVICE_VERSION raw to the terminal', async () => {
    const r = taggedRepo(0);
    const result = await runRelease(['stamp'], {
      cwd: r.dir,
      env: { SERVICE_VERSION: 'v1\u001b]0;owned\u0007' },
      subprocess: true,
    });
    expect(result.code).toBe(2);
    // Our own colour codes (listr2 colours CI logs) are fine; nothing else may reach the terminal.
    const withoutColours = result.stderr.replace(/\u001b\[[0-9;]*m/g, '');
    expect(withoutColours).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(result.stderr).toContain('v1\\u001b]0;owned\\u0007');
  });
});
