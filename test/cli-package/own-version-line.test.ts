import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { createVersionHandler } from '../../src/service/api/version-handler.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type RunningNpmRegistry, startNpmRegistry } from '../helpers/npm-registry.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';
import { pushRelease, REPOS } from '../promote/project.ts';
import { signRelease } from '../signing/sign-release.ts';
import { baseEnv, run } from '../svc/support.ts';
import { distTags, publishingProject } from './project.ts';

// A CLI on its own version line (`artifacts.cli.version: 'own'`): `@acme`-style `acme-tool`
// declares 0.31.3 while the service is CalVer without `v` (2026.6.0, 2026.7.0-rc.1, 2026.7.0).
// Through dev -> rc -> release from the rc on a real Verdaccio (images in a real docker-registry):
// the package is published under 0.31.3-based versions with the channel's dist-tags, never under
// the service's tag; the API's min_cli_version is a CLI version and the gate passes and blocks as
// the CLI's version says; verify's CLI row shows 0.31.3 and its verdict against the minimum.
const NAME = 'acme-tool';
const DECLARED = '0.31.3';
let images: RunningRegistry;
let npm: RunningNpmRegistry;
let scratch: string;
let store: RegistryStore;
const repos: GitRepo[] = [];
const servers: Server[] = [];

beforeAll(async () => {
  await Promise.all([startRegistry().then((r) => (images = r)), startNpmRegistry().then((r) => (npm = r))]);
  scratch = mkdtempSync(join(tmpdir(), 'sr-own-line-'));
  store = new RegistryStore({ registry: `${images.host}/acme`, env: {} });
}, 60_000);
afterAll(async () => {
  for (const server of servers) await new Promise((done) => server.close(done));
  for (const repo of repos) repo.remove();
  await Promise.all([images?.stop(), npm?.stop()]);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** acme-tool as its own build packs it: always the version its package.json declares, 0.31.3. */
async function acmeToolArchive(_serviceVersion: string, outFile: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'acme-tool-'));
  const pkg = join(dir, 'package');
  mkdirSync(pkg);
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name: NAME, version: DECLARED, bin: { 'acme-tool': 'cli.js' }, files: ['cli.js'] }),
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

async function project(tag: string, options: { commitsAfter?: number; minCli?: string } = {}) {
  const digests = await pushRelease(store, []);
  const made = await publishingProject({
    tag,
    registry: `${images.host}/acme`,
    npmrc: `registry=${npm.url}\n//${new URL(npm.url).host}/:_authToken=${npm.token}\n`,
    digests,
    archive: acmeToolArchive,
    packageName: NAME,
    cli: { version: 'own', bin: NAME },
    config: { api: { minCliVersion: options.minCli ?? '0.30.0' } },
    ...(options.commitsAfter ? { commitsAfter: options.commitsAfter } : {}),
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
function versions(): string[] {
  try {
    return JSON.parse(
      execFileSync('npm', ['view', NAME, 'versions', '--json', '--registry', npm.url, '--prefer-online'], {
        encoding: 'utf8',
        env: { PATH: process.env['PATH']!, HOME: scratch, npm_config_cache: join(scratch, '.npm') },
      }),
    );
  } catch {
    return [];
  }
}

/** An API embedding the library's version handler, serving `version` and `min_cli_version`. */
async function api(version: string, minCliVersion: string): Promise<string> {
  const handler = createVersionHandler({ version, minCliVersion });
  const server = createServer((req, res) =>
    handler(req, res, () => {
      res.writeHead(404).end();
    }),
  );
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

let release: Awaited<ReturnType<typeof project>>;
let prefix: string;

describe('a CLI on its own version line', { timeout: 240_000 }, () => {
  it('dev, rc and the release from the rc publish 0.31.3-based versions with the channel dist-tags', async () => {
    const dev = await project('2026.6.0', { commitsAfter: 2 });
    const devRun = await promote(dev.repo, ['--channel', 'dev']);
    expect(devRun.code, devRun.stderr).toBe(0);
    expect(tags()).toMatchObject({ dev: expect.stringMatching(/^0\.31\.3-dev\.2\.g[0-9a-f]+$/) });

    const rc = await project('2026.7.0-rc.1');
    const rcRun = await promote(rc.repo, ['--channel', 'rc', '--no-sign']);
    expect(rcRun.code, rcRun.stderr).toBe(0);
    expect(jsonOf<{ tag: string; package: { version: string } }>(rcRun)).toMatchObject({
      tag: '2026.7.0-rc.1',
      package: { version: '0.31.3-rc.1' },
    });
    expect(tags()).toMatchObject({ next: '0.31.3-rc.1' });

    release = await project('2026.7.0');
    await signRelease(release.repo.dir, store, rc.digests, REPOS);
    const releaseRun = await promote(release.repo, ['--channel', 'release', '--from', '2026.7.0-rc.1']);
    expect(releaseRun.code, releaseRun.stderr).toBe(0);
    const out = jsonOf<{ tag: string; package: { version: string; origin: string } }>(releaseRun);
    expect(out.tag).toBe('2026.7.0');
    expect(out.package.version).toBe('0.31.3');
    expect(out.package.origin).toContain('acme-tool@0.31.3-rc.1 from the registry');
    expect(tags()).toMatchObject({ latest: '0.31.3', next: '0.31.3-rc.1' });
    // Never under the service's version line.
    expect(versions().filter((v) => v.startsWith('2026'))).toEqual([]);
    expect(versions()).toEqual(expect.arrayContaining(['0.31.3', '0.31.3-rc.1']));
    // The record and the release set name the package with its own version.
    const set = JSON.parse(readFileSync(join(release.repo.dir, 'dist/release-set.intoto.json'), 'utf8'));
    expect(set.predicate.version).toBe('2026.7.0');
    expect(JSON.stringify(set.predicate)).toContain('"version":"0.31.3"');
  });

  it('npm install -g acme-tool@latest runs 0.31.3', async () => {
    prefix = join(scratch, 'prefix-latest');
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
        `${NAME}@latest`,
      ],
      {
        env: { ...baseEnv({ home: scratch }), npm_config_cache: join(scratch, 'npm-cache') },
        timeoutMs: 120_000,
      },
    );
    expect(installed.code, installed.stderr).toBe(0);
    const ran = await run(join(prefix, 'bin', NAME), [], { env: baseEnv() });
    expect(ran.stdout).toBe('acme-tool 0.31.3\n');
  });

  it("the gate blocks a CLI below its API's min_cli_version, a CLI version (nothing published)", async () => {
    const before = versions();
    const rc = await project('2026.8.0-rc.1', { minCli: '0.32.0' });
    const blocked = await promote(rc.repo, ['--channel', 'rc', '--no-sign']);
    expect(blocked.code).toBe(1);
    const error = jsonOf<{ error: { code: string; message: string } }>(blocked).error;
    expect(error.code).toBe('CLI_BELOW_OWN_MINIMUM');
    expect(error.message).toContain('0.31.3');
    expect(error.message).toContain('0.32.0');
    expect(versions()).toEqual(before);
  });

  it("verify's CLI row shows 0.31.3 and its verdict against the API's minimum", async () => {
    const binDirs = [join(prefix, 'bin')];
    const verify = (url: string) =>
      runRelease(['verify', '--url', url, '--json'], {
        cwd: release.repo.dir,
        env: { PATH: baseEnv({ binDirs }).PATH },
      });
    const inStep = await verify(await api('2026.7.0', '0.30.0'));
    const ok = jsonOf<{
      inStep: boolean;
      artifacts: { name: string; version: string; status: string; why: string }[];
    }>(inStep);
    const cli = ok.artifacts.find((a) => a.name === 'cli')!;
    expect(cli).toMatchObject({
      version: '0.31.3',
      status: 'ok',
      why: 'own version line, satisfies min_cli_version 0.30.0',
    });
    expect(ok.inStep, inStep.stdout).toBe(true);

    const below = await verify(await api('2026.7.0', '0.32.0'));
    expect(below.code).toBe(1);
    const drift = jsonOf<{ artifacts: { name: string; status: string }[]; findings: { code: string }[] }>(
      below,
    );
    expect(drift.artifacts.find((a) => a.name === 'cli')!.status).toBe('drift');
    expect(drift.findings.map((f) => f.code)).toContain('CLI_BELOW_MINIMUM');
  });
});
