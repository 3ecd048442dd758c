import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type RunningNpmRegistry, startNpmRegistry } from '../helpers/npm-registry.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';
import { pushRelease, REPOS } from '../promote/project.ts';
import { signRelease } from '../signing/sign-release.ts';
import { baseEnv, run } from '../svc/support.ts';
import { distTags, publishingProject } from './project.ts';

// Any npm CLI publishes through the channels, not only an svc this toolkit built: `acme-tool`, a
// plain npm package whose bin reads its version from its own package.json (no serviceVersion),
// goes dev -> rc -> release from the rc -> backport on a real Verdaccio, images in a real
// docker-registry; then `npm install -g acme-tool@<version>` runs it.
const NAME = 'acme-tool';
let images: RunningRegistry;
let npm: RunningNpmRegistry;
let scratch: string;
let store: RegistryStore;
const repos: GitRepo[] = [];

beforeAll(async () => {
  await Promise.all([startRegistry().then((r) => (images = r)), startNpmRegistry().then((r) => (npm = r))]);
  scratch = mkdtempSync(join(tmpdir(), 'sr-any-npm-cli-'));
  store = new RegistryStore({ registry: `${images.host}/acme`, env: {} });
}, 60_000);
afterAll(async () => {
  for (const repo of repos) repo.remove();
  await Promise.all([images?.stop(), npm?.stop()]);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** acme-tool at `version`, packed by npm: its bin prints the version of its package.json. */
async function acmeToolArchive(version: string, outFile: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'acme-tool-'));
  const pkg = join(dir, 'package');
  mkdirSync(pkg);
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({
      name: NAME,
      version: version.replace(/^v/, ''),
      bin: { 'acme-tool': 'cli.js' },
      files: ['cli.js'],
    }),
  );
  writeFileSync(
    join(pkg, 'cli.js'),
    "#!/usr/bin/env node\nconsole.log('acme-tool ' + require('./package.json').version);\n",
  );
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: pkg, encoding: 'utf8' }),
  )[0].filename as string;
  writeFileSync(outFile, readFileSync(join(dir, packed)));
  rmSync(dir, { recursive: true, force: true });
}

async function project(tag: string, commitsAfter = 0) {
  const digests = await pushRelease(store, []);
  const made = await publishingProject({
    tag,
    registry: `${images.host}/acme`,
    npmrc: `registry=${npm.url}\n//${new URL(npm.url).host}/:_authToken=${npm.token}\n`,
    digests,
    archive: acmeToolArchive,
    packageName: NAME,
    ...(commitsAfter ? { commitsAfter } : {}),
  });
  repos.push(made.repo);
  return { ...made, digests };
}

async function promote(repo: GitRepo, args: string[]): Promise<RunResult> {
  const result = await runRelease(['promote', ...args, '--json'], {
    cwd: repo.dir,
    env: { npm_config_cache: join(scratch, 'npm-cache') },
    timeoutMs: 120_000,
  });
  expect(result.stdout).not.toContain(npm.token);
  expect(result.stderr).not.toContain(npm.token);
  return result;
}

const tags = () => distTags(npm.url, scratch, NAME);

describe('any npm CLI publishes through the channels', { timeout: 180_000 }, () => {
  it('dev, rc, release from the rc and a backport get the dist-tags of the channel table', async () => {
    const first = await project('v1.0.0');
    expect((await promote(first.repo, ['--channel', 'release'])).code).toBe(0);
    expect(tags()).toEqual({ latest: '1.0.0' });

    const dev = await project('v1.0.0', 2);
    const devRun = await promote(dev.repo, ['--channel', 'dev']);
    expect(devRun.code, devRun.stderr).toBe(0);
    expect(tags()).toMatchObject({
      latest: '1.0.0',
      dev: expect.stringMatching(/^1\.0\.1-dev\.2\.g[0-9a-f]+$/),
    });

    const rc = await project('v2.0.0-rc.1');
    const rcRun = await promote(rc.repo, ['--channel', 'rc', '--no-sign']);
    expect(rcRun.code, rcRun.stderr).toBe(0);
    expect(tags()).toMatchObject({ latest: '1.0.0', next: '2.0.0-rc.1' });

    const release = await project('v2.0.0');
    await signRelease(release.repo.dir, store, rc.digests, REPOS);
    const releaseRun = await promote(release.repo, [
      '--channel',
      'release',
      '--from',
      'v2.0.0-rc.1',
      '--version',
      'v2.0.0',
    ]);
    expect(releaseRun.code, releaseRun.stderr).toBe(0);
    expect(jsonOf<{ package: { origin: string } }>(releaseRun).package.origin).toMatch(
      /acme-tool@2\.0\.0-rc\.1 from the registry, re-stamped v2\.0\.0/,
    );
    expect(tags()).toMatchObject({ latest: '2.0.0', next: '2.0.0-rc.1' });

    const backport = await project('v1.0.1');
    const backportRun = await promote(backport.repo, ['--channel', 'release']);
    expect(backportRun.code, backportRun.stderr).toBe(0);
    expect(tags()).toMatchObject({ latest: '2.0.0', next: '2.0.0-rc.1' });
  });

  it('npm install -g acme-tool@<version> runs the version asked for', async () => {
    for (const [spec, printed] of [
      ['2.0.0', '2.0.0'],
      ['latest', '2.0.0'],
      ['next', '2.0.0-rc.1'],
      ['1.0.1', '1.0.1'],
    ]) {
      const prefix = join(scratch, `prefix-${spec}`);
      const installed = await run(
        'npm',
        [
          'install',
          '-g',
          '--prefix',
          prefix,
          '--registry',
          npm.url,
          '--no-audit',
          '--no-fund',
          `${NAME}@${spec}`,
        ],
        {
          env: { ...baseEnv({ home: scratch }), npm_config_cache: join(scratch, 'npm-cache') },
          timeoutMs: 120_000,
        },
      );
      expect(installed.code, installed.stderr).toBe(0);
      const ran = await run(join(prefix, 'bin', NAME), [], { env: baseEnv() });
      expect(ran.stdout).toBe(`acme-tool ${printed}\n`);
    }
  });
});
