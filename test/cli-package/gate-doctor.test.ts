import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmClient } from '../../src/cli-package/npm-client.ts';
import { REGISTRY_MARK, restampCliArchive } from '../../src/cli-package/restamp-archive.ts';
import { buildCliArchive } from '../../src/service/svc/build/build-cli-archive.ts';
import { type RunningNpmRegistry, startNpmRegistry } from '../helpers/npm-registry.ts';
import type { StartedProcess } from '../helpers/start-process.ts';
import { baseEnv, npmInstall, run, startApi, svcIn } from '../svc/support.ts';

// The pinned form end to end: a real service-api whose build had artifacts.cli.publish on
// (SERVICE_CLI_PACKAGE), an old svc installed from a real Verdaccio or from the API's URL.
let npm: RunningNpmRegistry;
let dir: string;
let announcing: StartedProcess;
let silent: StartedProcess;

beforeAll(async () => {
  npm = await startNpmRegistry();
  dir = mkdtempSync(join(tmpdir(), 'sr-gate-pin-'));
  writeFileSync(join(dir, '.npmrc'), npm.npmrc());
  const client = npmClient({ configDir: dir, env: { PATH: process.env['PATH']!, HOME: dir } });
  // Published the way release promote publishes: the archive re-stamped with the registry mark.
  const old = await buildCliArchive({ version: 'v0.1.0', outFile: join(dir, 'built.tgz') });
  const marked = await restampCliArchive(readFileSync(old.path), 'v0.1.0', REGISTRY_MARK);
  writeFileSync(join(dir, 'old.tgz'), marked);
  await client.publish(join(dir, 'old.tgz'), 'latest');
  const current = await buildCliArchive({ version: 'v2.0.0', outFile: join(dir, 'new.tgz') });
  [announcing, silent] = await Promise.all([
    startApi({
      SERVICE_VERSION: 'v2.0.0',
      SERVICE_CLI_ARCHIVE: current.path,
      SERVICE_CLI_PACKAGE: 'service-cli',
    }),
    startApi({ SERVICE_VERSION: 'v2.0.0', SERVICE_CLI_ARCHIVE: current.path }),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([announcing?.stop(), silent?.stop(), npm?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

async function installFromRegistry(prefix: string) {
  const result = await run(
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
      'service-cli@0.1.0',
    ],
    { env: { ...baseEnv({ home: dir }), npm_config_cache: join(dir, 'cache') }, timeoutMs: 120_000 },
  );
  expect(result.code, result.stderr).toBe(0);
}

describe('gate and doctor name the pinned package', { timeout: 120_000 }, () => {
  it('blocked: the message adds npm install -g service-cli@<server version> when the API announces it', async () => {
    const prefix = join(dir, 'from-registry');
    await installFromRegistry(prefix);
    const env = (url: string) => ({ ...baseEnv({ home: join(dir, 'home') }), SERVICE_API_URL: url });
    const blocked = await run(svcIn(prefix), ['status'], { env: env(announcing.url) });
    expect(blocked.code).toBe(3);
    expect(blocked.stderr).toContain(`npm install -g ${announcing.url}/api/cli/download/service-cli.tar.gz`);
    expect(blocked.stderr).toContain('npm install -g service-cli@2.0.0');
    // The control: an API whose build does not publish prints the URL form only.
    const plain = await run(svcIn(prefix), ['status'], { env: env(silent.url) });
    expect(plain.code).toBe(3);
    expect(plain.stderr).not.toContain('service-cli@');

    const doctor = await run(svcIn(prefix), ['doctor'], { env: env(announcing.url) });
    expect(doctor.stdout).toContain(
      'svc v0.1.0: installed from the npm registry (package service-cli@0.1.0)',
    );
    expect(doctor.stdout).toContain("pinned to the server's version: npm install -g service-cli@2.0.0");
    const json = JSON.parse(
      (await run(svcIn(prefix), ['doctor', '--json'], { env: env(announcing.url) })).stdout,
    );
    expect(json).toMatchObject({
      installed: { from: 'registry' },
      pinned_install: 'npm install -g service-cli@2.0.0',
    });
  });

  it('doctor: a svc installed from the API says it came from an archive, not the registry', async () => {
    const prefix = join(dir, 'from-api');
    const installed = await npmInstall(prefix, `${announcing.url}/api/cli/download/service-cli.tar.gz`);
    expect(installed.code, installed.stderr).toBe(0);
    const doctor = await run(svcIn(prefix), ['doctor'], {
      env: { ...baseEnv({ home: join(dir, 'home2') }), SERVICE_API_URL: announcing.url },
    });
    expect(doctor.stdout).toContain("svc v2.0.0: installed from a CLI archive (the API's download");
  });
});
