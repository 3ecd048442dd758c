import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_CLI_VERSION } from '../../src/service/api/min-cli-version.ts';
import type { StartedProcess } from '../helpers/start-process.ts';
import {
  archiveOf,
  baseEnv,
  bundleOf,
  npmInstall,
  run,
  runBundle,
  runOnTty,
  Scratch,
  SVC_DEV_BIN,
  startApi,
  svcIn,
} from './support.ts';

// The gate against the real reference API (bin/service-api.js) serving a real archive, with real
// `npm install -g --prefix <tmp>`. The API's minimum is MIN_CLI_VERSION (1.0.0).
const scratch = new Scratch();
let api: StartedProcess;
let url: string;
let oldArchive: string;
let bundles: Record<string, string> = {};

beforeAll(async () => {
  expect(MIN_CLI_VERSION).toBe('1.0.0'); // the versions below are chosen around it
  const newArchive = await archiveOf('v1.0.0', scratch.dir);
  oldArchive = await archiveOf('v0.1.0', scratch.dir);
  api = await startApi({ SERVICE_VERSION: 'v1.0.0', SERVICE_CLI_ARCHIVE: newArchive });
  url = api.url;
  const versions = ['v1.0.0-rc.1', 'v1.0.0-3-gabcdef0', 'abcdef0', 'v0.1.0', 'v1.0.0'];
  const built = await Promise.all(versions.map((v) => bundleOf(v, scratch.dir)));
  bundles = Object.fromEntries(versions.map((v, i) => [v, built[i]!]));
});

afterAll(async () => {
  await api?.stop();
  scratch.cleanup();
});

const home = (name: string) => scratch.path('home', name);

describe('a CLI below the minimum', () => {
  it('is blocked with exit 3, the versions and both upgrade commands; the printed npm command fixes it', async () => {
    const old = scratch.path('prefix-blocked');
    expect((await npmInstall(old, oldArchive)).code).toBe(0);
    const env = { ...baseEnv({ home: home('blocked'), binDirs: [join(old, 'bin')] }), SERVICE_API_URL: url };

    const blocked = await run(svcIn(old), ['status'], { env });
    expect(blocked.code).toBe(3);
    expect(blocked.stdout).toBe(''); // the command did not run
    expect(blocked.stderr).toContain('svc v0.1.0');
    expect(blocked.stderr).toContain(`minimum CLI version is ${MIN_CLI_VERSION}`);
    expect(blocked.stderr).toMatch(/upgrade is required/i);
    expect(blocked.stderr).toContain(`svc update --url ${url}`);
    const npmLine = blocked.stderr.split('\n').find((line) => line.trim().startsWith('npm install -g '));
    expect(npmLine?.trim()).toBe(`npm install -g ${url}/api/cli/download/service-cli.tar.gz`);

    // Run exactly the printed command, into a fresh prefix instead of the machine's global one.
    const fresh = scratch.path('prefix-from-message');
    const [, , , spec] = npmLine!.trim().split(' ');
    const installed = await npmInstall(fresh, spec!);
    expect(installed.code, installed.stderr).toBe(0);
    expect((await run(svcIn(fresh), ['--version'], { env })).stdout).toBe('svc v1.0.0\n');
    const passes = await run(svcIn(fresh), ['status'], { env });
    expect(passes.code, passes.stderr).toBe(0);
    expect(passes.stdout).toContain(`API v1.0.0, minimum CLI ${MIN_CLI_VERSION}`);
  });

  it('svc update --url (never gated) installs the API archive in place; --dry-run changes nothing', async () => {
    const prefix = scratch.path('prefix-update');
    expect((await npmInstall(prefix, oldArchive)).code).toBe(0);
    const tmp = scratch.path('tmp-update');
    mkdirSync(tmp);
    // TMPDIR: the update's download directory lands here, so the test can see it is cleaned up.
    const env = { ...baseEnv({ home: home('update'), binDirs: [join(prefix, 'bin')] }), TMPDIR: tmp };

    const dry = await run(svcIn(prefix), ['update', '--url', url, '--dry-run'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('would install svc v1.0.0');
    expect(dry.stdout).toContain(`npm install -g --prefix ${prefix}`);
    expect((await run(svcIn(prefix), ['--version'], { env })).stdout).toBe('svc v0.1.0\n');

    const updated = await run(svcIn(prefix), ['update', '--url', url], { env, timeoutMs: 120_000 });
    expect(updated.code, updated.stderr).toBe(0);
    expect(updated.stdout).toContain('svc updated: v0.1.0 -> v1.0.0');
    expect(updated.stderr).toMatch(/SHA-256 [0-9a-f]{64}/);
    expect((await run(svcIn(prefix), ['--version'], { env })).stdout).toBe('svc v1.0.0\n');
    expect((await run(svcIn(prefix), ['status', '--url', url], { env })).code).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('in legacy warn mode (spec rule 7.5) warns naming both versions and runs the command', async () => {
    const env = { ...baseEnv({ home: home('warn') }), SERVICE_API_URL: url, SVC_VERSION_GATE: 'warn' };
    const result = await runBundle(bundles['v0.1.0']!, ['status'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('API v1.0.0');
    expect(result.stderr).toMatch(/warning: svc v0\.1\.0 is older than the minimum CLI version 1\.0\.0/);
    expect(result.stderr).toContain(`npm install -g ${url}/api/cli/download/service-cli.tar.gz`);
  });
});

describe('versions at or above the minimum, and development builds', () => {
  it.each(['v1.0.0-rc.1', 'v1.0.0-3-gabcdef0', 'v1.0.0'])('%s passes silently', async (version) => {
    const env = { ...baseEnv({ home: home(version) }), SERVICE_API_URL: url };
    const result = await runBundle(bundles[version]!, ['status'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`${url}: API v1.0.0`);
  });

  it('a bare-hash build warns once that it is not checked, then runs', async () => {
    const env = { ...baseEnv({ home: home('hash') }), SERVICE_API_URL: url };
    const result = await runBundle(bundles['abcdef0']!, ['status'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/svc abcdef0 is a bare commit hash: a development build is not checked/);
    expect(result.stdout).toContain('API v1.0.0');
  });

  it('the checkout prints "svc unknown" and is treated as a development build', async () => {
    const env = { ...baseEnv({ home: home('checkout') }), SERVICE_API_URL: url };
    expect((await run(process.execPath, [SVC_DEV_BIN, '--version'], { env })).stdout).toBe('svc unknown\n');
    const version = await run(process.execPath, [SVC_DEV_BIN, 'version', '--json'], { env });
    expect(version.code, version.stderr).toBe(0);
    expect(JSON.parse(version.stdout)).toMatchObject({
      cli: 'unknown',
      verdict: 'dev-build',
      api: { version: 'v1.0.0' },
    });
  });

  it('svc version --json reports both sides and the verdict', async () => {
    const env = { ...baseEnv({ home: home('version-json') }), SERVICE_API_URL: url };
    const result = await runBundle(bundles['v1.0.0-rc.1']!, ['version', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      cli: 'v1.0.0-rc.1',
      api: { url, version: 'v1.0.0', min_cli_version: MIN_CLI_VERSION },
      verdict: 'newer-server',
      reason: `v1.0.0-rc.1 is at or above ${MIN_CLI_VERSION}`,
    });
  });
});

describe('choosing the API', () => {
  it('without --url, SERVICE_API_URL or a config file: exit 2 naming all three', async () => {
    const result = await runBundle(bundles['v1.0.0']!, ['status'], baseEnv({ home: home('none') }));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--url/);
    expect(result.stderr).toMatch(/SERVICE_API_URL/);
    expect(result.stderr).toMatch(/svc config set-url/);
  });

  it('svc config set-url writes the config atomically and later commands use it; --url wins', async () => {
    const env = baseEnv({ home: home('config') });
    const set = await runBundle(bundles['v1.0.0']!, ['config', 'set-url', `${url}/`], env);
    expect(set.code, set.stderr).toBe(0);
    const dir = join(home('config'), '.config', 'svc');
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'))).toEqual({ url });
    expect(readdirSync(dir)).toEqual(['config.json']); // no temp files left
    const status = await runBundle(bundles['v1.0.0']!, ['status'], env);
    expect(status.code, status.stderr).toBe(0);
    const elsewhere = await runBundle(bundles['v1.0.0']!, ['status', '--url', 'http://127.0.0.1:1'], env);
    expect(elsewhere.code).toBe(3);
    expect(elsewhere.stderr).toMatch(/connection refused/);
  });

  it('refuses a malformed URL with exit 2 and does not touch the config', async () => {
    const env = baseEnv({ home: home('bad-url') });
    const result = await runBundle(bundles['v1.0.0']!, ['config', 'set-url', 'ftp://x'], env);
    expect(result.code).toBe(2);
    expect(existsSync(join(home('bad-url'), '.config', 'svc', 'config.json'))).toBe(false);
  });
});

describe('the soft notice when the server is newer', () => {
  let newer: StartedProcess;
  beforeAll(async () => {
    newer = await startApi({ SERVICE_VERSION: 'v1.5.0' });
  });
  afterAll(async () => {
    await newer?.stop();
  });

  const NOTICE = /notice: the API at \S+ runs v1\.5\.0, newer than svc v1\.0\.0/;

  it('is shown once per (url, server version) at a terminal', async () => {
    const env = { ...baseEnv({ home: home('notice') }), SERVICE_API_URL: newer.url, TERM: 'dumb' };
    const first = await runOnTtyBundle(env);
    expect(first.code, first.stdout).toBe(0);
    expect(first.stdout).toMatch(NOTICE);
    expect(first.stdout).toContain('API v1.5.0');
    const second = await runOnTtyBundle(env);
    expect(second.code).toBe(0);
    expect(second.stdout).not.toMatch(NOTICE);
    expect(second.stdout).toContain('API v1.5.0');
  });

  it('is silent in CI, with SVC_NO_NOTICE=1, and when stderr is not a terminal', async () => {
    const env = { ...baseEnv({ home: home('quiet') }), SERVICE_API_URL: newer.url, TERM: 'dumb' };
    expect((await runOnTtyBundle({ ...env, CI: 'true' })).stdout).not.toMatch(NOTICE);
    expect((await runOnTtyBundle({ ...env, SVC_NO_NOTICE: '1' })).stdout).not.toMatch(NOTICE);
    const piped = await runBundle(bundles['v1.0.0']!, ['status'], env);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    // None of those counted as "shown": the first run at a terminal still gets it.
    expect((await runOnTtyBundle(env)).stdout).toMatch(NOTICE);
  });

  function runOnTtyBundle(env: Record<string, string | undefined>) {
    return runOnTty(process.execPath, [bundles['v1.0.0']!, 'status'], env);
  }
});
