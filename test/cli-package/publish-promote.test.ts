import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPackageArchive } from '../../src/archives/read-package-archive.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type RunningNpmRegistry, startNpmRegistry } from '../helpers/npm-registry.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';
import { ARTIFACTS, digestsOf, pushRelease, REPOS } from '../promote/project.ts';
import { type RegistryProxy, startProxy } from '../registry/proxy.ts';
import { signRelease } from '../signing/sign-release.ts';
import { baseEnv, run, svcIn } from '../svc/support.ts';
import { distTags, foreignArchive, publishingProject } from './project.ts';

// `release promote` with artifacts.cli.publish on, as a subprocess: images in a real
// docker-registry (htpasswd), the CLI package in a real Verdaccio (htpasswd token in an .npmrc
// beside the config), each behind a fault proxy. One history, in order: the tests build on it.
const user = 'promoter';
const password = `pw-${randomBytes(12).toString('hex')}`;
const basic = Buffer.from(`${user}:${password}`).toString('base64');
let images: RunningRegistry;
let imageProxy: RegistryProxy;
let npm: RunningNpmRegistry;
let npmProxy: RegistryProxy;
let scratch: string;
let env: Record<string, string>;
let store: RegistryStore;
let npmUrl: string;
const repos: GitRepo[] = [];

beforeAll(async () => {
  // Each assigned as it starts, so afterAll stops the one that did when the other failed.
  await Promise.all([
    startRegistry({ htpasswd: { user, password } }).then((r) => (images = r)),
    startNpmRegistry().then((r) => (npm = r)),
  ]);
  [imageProxy, npmProxy] = await Promise.all([startProxy(images.host), startProxy(new URL(npm.url).host)]);
  npmUrl = `http://${npmProxy.host}/`;
  scratch = mkdtempSync(join(tmpdir(), 'sr-publish-'));
  writeFileSync(
    join(scratch, 'config.json'),
    JSON.stringify({ auths: { [imageProxy.host]: { auth: basic }, [images.host]: { auth: basic } } }),
  );
  env = { DOCKER_CONFIG: scratch, npm_config_cache: join(scratch, 'npm-cache') };
  store = new RegistryStore({ registry: `${images.host}/acme`, env: { DOCKER_CONFIG: scratch } });
}, 60_000);
afterAll(async () => {
  for (const repo of repos) repo.remove();
  await Promise.all([imageProxy?.stop(), npmProxy?.stop()]);
  await Promise.all([images?.stop(), npm?.stop()]);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const npmrc = (token = npm.token) => `registry=${npmUrl}\n//${npmProxy.host}/:_authToken=${token}\n`;
const tags = () => distTags(npm.url, scratch);

async function project(
  tag: string,
  options: {
    commitsAfter?: number;
    token?: string;
    foreign?: boolean;
    digests?: Record<string, string>;
  } = {},
) {
  const digests = options.digests ?? (await pushRelease(store, []));
  const made = await publishingProject({
    tag,
    registry: `${imageProxy.host}/acme`,
    npmrc: npmrc(options.token),
    digests,
    ...(options.commitsAfter ? { commitsAfter: options.commitsAfter } : {}),
    ...(options.foreign ? { archive: foreignArchive } : {}),
  });
  repos.push(made.repo);
  return { ...made, digests };
}

/** `faults`: npm must not retry, so that one injected failure is a failure. */
async function promote(repo: GitRepo, args: string[], faults = false): Promise<RunResult> {
  const result = await runRelease(['promote', ...args, '--json'], {
    cwd: repo.dir,
    env: faults ? { ...env, npm_config_fetch_retries: '0' } : env,
    timeoutMs: 120_000,
  });
  for (const secret of [npm.token, password, basic]) {
    expect(result.stdout).not.toContain(secret);
    expect(result.stderr).not.toContain(secret);
  }
  return result;
}

const latestImages = async () => Object.values(await digestsOf(store, 'latest'));

describe('release promote publishes the CLI package through the channels', { timeout: 180_000 }, () => {
  let release140: Record<string, string>;

  it('release: X.Y.Z and latest, published before any tag moves', async () => {
    const { repo, digests } = await project('v1.4.0');
    npmProxy.log.length = 0;
    imageProxy.log.length = 0;
    const result = await promote(repo, ['--channel', 'release']);
    expect(result.code, result.stderr).toBe(0);
    const out = jsonOf<{ package: { version: string; published: boolean } }>(result);
    expect(out.package).toMatchObject({ version: '1.4.0', published: true });
    expect(tags()).toEqual({ latest: '1.4.0' });
    expect(await latestImages()).toEqual(ARTIFACTS.map((a) => digests[a]));
    release140 = digests;
    // The release set (unsigned: this project has no key) names the package by its integrity.
    const set = JSON.parse(readFileSync(join(repo.dir, 'dist/release-set.intoto.json'), 'utf8'));
    expect(set.subject).toContainEqual({
      name: 'pkg:npm/service-cli@1.4.0',
      digest: { sha512: expect.stringMatching(/^[0-9a-f]{128}$/) },
    });
    // The publish (PUT /service-cli) came before the first image tag was written.
    expect(npmProxy.log.some((l) => l === 'PUT /service-cli')).toBe(true);
  });

  it('--dry-run prints the package plan and publishes nothing', async () => {
    const { repo } = await project('v1.5.0');
    npmProxy.log.length = 0;
    const result = await promote(repo, ['--channel', 'release', '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    const out = jsonOf<{
      package: { version: string; publish: boolean; published: boolean; distTags: unknown[] };
    }>(result);
    expect(out.package).toMatchObject({ version: '1.5.0', publish: true, published: false });
    expect(out.package.distTags).toEqual([
      expect.objectContaining({ tag: 'latest', from: '1.4.0', to: '1.5.0' }),
    ]);
    expect(npmProxy.log.filter((l) => !l.startsWith('GET'))).toEqual([]);
    expect(tags()).toEqual({ latest: '1.4.0' });
  });

  it('dev: a prerelease after the tag under dev; latest and next stay', async () => {
    const { repo, version } = await project('v1.4.0', { commitsAfter: 3 });
    expect(version).toMatch(/^v1\.4\.0-3-g[0-9a-f]{7}$/);
    const result = await promote(repo, ['--channel', 'dev']);
    expect(result.code, result.stderr).toBe(0);
    const hash = version.split('-g')[1];
    expect(tags()).toEqual({ latest: '1.4.0', dev: `1.4.1-dev.3.g${hash}` });
  });

  let rcDigests: Record<string, string>;
  let rcRepo: GitRepo;
  it('rc: X.Y.Z-rc.N under next; latest stays', async () => {
    const made = await project('v2.0.0-rc.1');
    rcDigests = made.digests;
    rcRepo = made.repo;
    const result = await promote(made.repo, ['--channel', 'rc', '--no-sign']);
    expect(result.code, result.stderr).toBe(0);
    expect(tags()).toMatchObject({ latest: '1.4.0', next: '2.0.0-rc.1' });
    expect(await latestImages()).toEqual(ARTIFACTS.map((a) => release140[a]));
  });

  it("release --from the rc: X.Y.Z from the rc's tarball re-stamped, latest moves, next stays", async () => {
    const { repo } = await project('v2.0.0');
    await signRelease(repo.dir, store, rcDigests, REPOS);
    const result = await promote(repo, [
      '--channel',
      'release',
      '--from',
      'v2.0.0-rc.1',
      '--version',
      'v2.0.0',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(jsonOf<{ package: { origin: string } }>(result).package.origin).toMatch(
      /service-cli@2\.0\.0-rc\.1 from the registry, re-stamped v2\.0\.0/,
    );
    expect(tags()).toMatchObject({ latest: '2.0.0', next: '2.0.0-rc.1' });
    expect(await latestImages()).toEqual(ARTIFACTS.map((a) => rcDigests[a]));
    // Same code as the tested rc: svc.js byte-identical.
    const fetched = (v: string) => {
      const out = execFileSync(
        'npm',
        ['pack', `service-cli@${v}`, '--json', '--registry', npm.url, '--pack-destination', scratch],
        {
          encoding: 'utf8',
          env: { PATH: process.env['PATH']!, HOME: scratch, npm_config_cache: join(scratch, 'npm-cache') },
        },
      );
      const file = join(scratch, JSON.parse(out)[0].filename);
      return readPackageArchive(readFileSync(file)).find((e) => e.path === 'svc.js')!.content;
    };
    expect(fetched('2.0.0').equals(fetched('2.0.0-rc.1'))).toBe(true);
    void rcRepo;
  });

  let backport: Record<string, string>;
  it('backport: 1.4.1 gets its version only; latest stays at 2.0.0 for images and package', async () => {
    const before = await latestImages();
    const { repo, digests } = await project('v1.4.1');
    backport = digests;
    const result = await promote(repo, ['--channel', 'release']);
    expect(result.code, result.stderr).toBe(0);
    const out = jsonOf<{ package: { kept: { tag: string; reason: string }[] } }>(result);
    expect(out.package.kept.find((k) => k.tag === 'latest')!.reason).toMatch(/backport/);
    expect(tags()).toMatchObject({ latest: '2.0.0', next: '2.0.0-rc.1' });
    expect(await latestImages()).toEqual(before);
  });

  it('the same bytes again are a no-op; other bytes under a published version are refused before any write', async () => {
    const { repo } = await project('v1.4.1', { digests: backport });
    const again = await promote(repo, ['--channel', 'release']);
    expect(again.code, again.stderr).toBe(0);
    expect(jsonOf<{ package: { publish: boolean } }>(again).package.publish).toBe(false);

    const other = await project('v1.4.1', { foreign: true, digests: backport });
    npmProxy.log.length = 0;
    imageProxy.log.length = 0;
    const refused = await promote(other.repo, ['--channel', 'release']);
    expect(refused.code).toBe(1);
    expect(jsonOf<{ error: { code: string } }>(refused).error.code).toBe('PACKAGE_VERSION_IMMUTABLE');
    expect(npmProxy.log.filter((l) => l.startsWith('PUT'))).toEqual([]);
    expect(imageProxy.log.filter((l) => l.startsWith('PUT'))).toEqual([]);
  });

  it('npm install -g service-cli@<version> from the registry gives a svc of that version', async () => {
    for (const [spec, printed] of [
      ['2.0.0', 'v2.0.0'],
      ['latest', 'v2.0.0'],
      ['1.4.1', 'v1.4.1'],
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
          `service-cli@${spec}`,
        ],
        {
          env: { ...baseEnv({ home: scratch }), npm_config_cache: join(scratch, 'npm-cache') },
          timeoutMs: 120_000,
        },
      );
      expect(installed.code, installed.stderr).toBe(0);
      expect((await run(svcIn(prefix), ['--version'], { env: baseEnv() })).stdout).toBe(`svc ${printed}\n`);
    }
  });

  it('a faulted publish leaves latest as it was, for images and package', async () => {
    const before = await latestImages();
    const { repo } = await project('v2.1.0');
    npmProxy.failFirst((method, url) => method === 'PUT' && url === '/service-cli');
    const result = await promote(repo, ['--channel', 'release'], true);
    expect(result.code).toBe(3);
    expect(tags()).toMatchObject({ latest: '2.0.0' });
    expect(await latestImages()).toEqual(before);
  });

  it('a faulted image latest after the publish: images and package end together (converged, or both put back)', async () => {
    const before = await latestImages();
    const { repo, digests } = await project('v2.2.0');
    imageProxy.failFirst((method, url) => method === 'PUT' && url.endsWith('/manifests/latest'));
    const result = await promote(repo, ['--channel', 'release'], true);
    expect(tags()).not.toHaveProperty('promote-pending');
    if (result.code === 0) {
      // The promotion's settle step wrote latest again: everything moved, package and images.
      expect(tags()).toMatchObject({ latest: '2.2.0' });
      expect(await latestImages()).toEqual(ARTIFACTS.map((a) => digests[a]));
    } else {
      expect(result.code).toBe(3);
      const error = jsonOf<{ error: { message: string } }>(result).error;
      expect(error.message).toMatch(/service-cli@2\.2\.0 was published to .* and cannot be taken back/);
      expect(tags()).toMatchObject({ latest: '2.0.0' });
      expect(await latestImages()).toEqual(before);
    }
  });

  it('a faulted dist-tag after the images puts every image latest back', async () => {
    const before = await latestImages();
    const latestBefore = tags()['latest'];
    const { repo } = await project('v2.3.0');
    npmProxy.failFirst((method, url) => method === 'PUT' && url.includes('/dist-tags/latest'));
    const result = await promote(repo, ['--channel', 'release'], true);
    expect(result.code).toBe(3);
    expect(jsonOf<{ error: { message: string } }>(result).error.message).toMatch(
      /undone: .*latest back to .*cannot be taken back/s,
    );
    expect(tags()['latest']).toBe(latestBefore);
    expect(await latestImages()).toEqual(before);
  });

  it('a wrong token: exit 3 before any write, and no token in the output', async () => {
    const wrong = `wrong-${randomBytes(16).toString('hex')}`;
    const latestBefore = tags()['latest'];
    const { repo } = await project('v2.4.0', { token: wrong });
    imageProxy.log.length = 0;
    const result = await promote(repo, ['--channel', 'release'], true);
    expect(result.code).toBe(3);
    expect(jsonOf<{ error: { code: string } }>(result).error.code).toBe('NPM_AUTH_FAILED');
    expect(result.stdout + result.stderr).not.toContain(wrong);
    expect(imageProxy.log.filter((l) => l.startsWith('PUT'))).toEqual([]);
    expect(tags()['latest']).toBe(latestBefore);
  });
});
