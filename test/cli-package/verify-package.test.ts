import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { npmClient } from '../../src/cli-package/npm-client.ts';
import { buildCliArchive } from '../../src/service/svc/build/build-cli-archive.ts';
import { checkCliPackage } from '../../src/verify/checks/check-cli-package.ts';
import { probeCliPackage } from '../../src/verify/probes/cli-package.ts';
import { type RunningNpmRegistry, startNpmRegistry } from '../helpers/npm-registry.ts';

// What `release verify --registry` reads of the CLI package (verify-package-step.ts), against a
// real Verdaccio through npm's own configuration, and the findings it turns into.
let npm: RunningNpmRegistry;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  npm = await startNpmRegistry();
  dir = mkdtempSync(join(tmpdir(), 'sr-verify-package-'));
  writeFileSync(join(dir, '.npmrc'), npm.npmrc());
  env = { PATH: process.env['PATH']!, HOME: dir, npm_config_cache: join(dir, 'cache') };
  const client = npmClient({ configDir: dir, env });
  for (const [version, tag] of [
    ['v1.4.0', 'latest'],
    ['v2.0.0', 'latest'],
    ['v1.4.1', 'backport'],
  ] as const) {
    const { path } = await buildCliArchive({ version, outFile: join(dir, `${version}.tgz`) });
    await client.publish(path, tag);
  }
}, 120_000);
afterAll(async () => {
  await npm?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const read = (tag: string, configDir = dir) =>
  probeCliPackage({ npm: npmClient({ configDir, env, fetchRetries: 0 }), name: 'service-cli', tag });

describe('release verify: the CLI package of the deployment tag', { timeout: 60_000 }, () => {
  it('the release latest names: in step, no finding', async () => {
    const reading = await read('v2.0.0');
    expect(reading).toMatchObject({ version: '2.0.0', exists: true, registry: npm.url });
    expect(reading.distTags['latest']).toBe('2.0.0');
    expect(checkCliPackage(reading)).toEqual([]);
  });

  it('a backport: published, and latest is newer (a notice)', async () => {
    const findings = checkCliPackage(await read('v1.4.1'));
    expect(findings.map((f) => [f.code, f.severity])).toEqual([['CLI_PACKAGE_LATEST_NEWER', 'notice']]);
    expect(findings[0]!.fix).toBe('pin the CLI: npm install -g service-cli@1.4.1');
  });

  it('a release that is not published is drift, with the fix', async () => {
    const findings = checkCliPackage(await read('v2.1.0'));
    expect(findings.map((f) => [f.code, f.severity])).toEqual([['CLI_PACKAGE_MISSING', 'drift']]);
  });

  it('latest left behind a newer release is drift', () => {
    const findings = checkCliPackage({
      package: 'service-cli',
      version: '2.1.0',
      registry: npm.url,
      exists: true,
      distTags: { latest: '2.0.0' },
    });
    expect(findings.map((f) => f.code)).toEqual(['CLI_PACKAGE_LATEST_BEHIND']);
  });

  it('an unreachable registry cannot be verified (exit 3 severity), without the token', async () => {
    const other = mkdtempSync(join(tmpdir(), 'sr-verify-package-down-'));
    writeFileSync(
      join(other, '.npmrc'),
      `registry=http://127.0.0.1:1/\n//127.0.0.1:1/:_authToken=${npm.token}\n`,
    );
    const reading = await read('v2.0.0', other);
    rmSync(other, { recursive: true, force: true });
    const findings = checkCliPackage(reading);
    expect(findings.map((f) => [f.code, f.severity])).toEqual([['CLI_PACKAGE_UNREADABLE', 'unreachable']]);
    expect(JSON.stringify(findings)).not.toContain(npm.token);
  });
});
