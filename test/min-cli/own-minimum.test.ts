import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedProcess } from '../../src/processes/start-process.ts';
import { MIN_CLI_VERSION } from '../../src/service/api/min-cli-version.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { writeReferenceConfig } from '../helpers/reference-config.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import {
  archiveOf,
  baseEnv,
  npmInstall,
  packageFileIn,
  run,
  Scratch,
  sha256Of,
  startApi,
  svcIn,
} from '../svc/support.ts';

// Nothing may ship a CLI that its own API blocks. `release build` and `release promote` refuse a
// CLI below the min_cli_version the config declares for its API (the api artifact's
// minCliVersion, which the reference declares as its constant, or api.minCliVersion), and never
// assume one a project did not declare; `svc update` refuses an archive below the serving API's
// minimum and keeps the installed svc.

interface ErrorJson {
  error: { code: string; message: string; hint: string };
}

describe('release build and promote: CLI_BELOW_OWN_MINIMUM', () => {
  let repo: GitRepo;
  beforeAll(async () => {
    expect(MIN_CLI_VERSION).toBe('1.0.0');
    repo = GitRepo.create('own-minimum-');
    repo.write('.gitignore', 'dist/\n.release/\n');
    writeReferenceConfig(repo.dir);
    repo.commit('first');
    repo.tag('v0.4.0');
    const stamp = await runRelease(['stamp'], { cwd: repo.dir });
    expect(stamp.code, stamp.stderr).toBe(0);
  }, 60_000);
  afterAll(() => repo?.remove());

  it('build refuses v0.4.0 against the reference API (1.0.0), exit 1, nothing built', async () => {
    const result = await runRelease(['build', '--only', 'cli', '--json'], { cwd: repo.dir });
    expect(result.code).toBe(1);
    const { error } = jsonOf<ErrorJson>(result);
    expect(error.code).toBe('CLI_BELOW_OWN_MINIMUM');
    expect(error.message).toMatch(
      /its CLI v0\.4\.0 is below 1\.0\.0, the min_cli_version its own API serves/,
    );
    expect(error.hint).toMatch(/v1\.0\.0/);
    expect(existsSync(join(repo.dir, 'dist/service-cli.tar.gz'))).toBe(false);
  });

  it('promote refuses it too, before the store is touched (rc and release)', async () => {
    for (const [channel, version] of [
      ['rc', 'v0.4.0-rc.1'],
      ['release', 'v0.4.0'],
    ] as const) {
      const result = await runRelease(
        ['promote', '--channel', channel, '--from', version, '--version', version, '--json'],
        { cwd: repo.dir },
      );
      expect(result.code, result.stderr).toBe(1);
      expect(jsonOf<ErrorJson>(result).error.code).toBe('CLI_BELOW_OWN_MINIMUM');
      expect(existsSync(join(repo.dir, '.release/oci'))).toBe(false);
    }
  });

  it("a project's own API with api.minCliVersion 0.3.0 builds its v0.4.0 CLI", async () => {
    // A project's own CLI, built by its own command (here a tiny script that writes the archive).
    const artifacts = {
      cli: {
        package: 'own-cli',
        build: {
          // A real (tiny) archive with code in it: release build refuses one of packaging metadata only.
          command: [
            'sh',
            '-c',
            "mkdir -p dist/own-cli && echo 'console.log(1)' > dist/own-cli/cli.js && tar -czf dist/own-cli.tgz -C dist own-cli",
          ],
          archive: 'dist/own-cli.tgz',
        },
      },
    };
    // Without a declared minimum nothing is assumed: the reference API's 1.0.0 is not this API's.
    rmSync(join(repo.dir, 'release.config.mjs'), { force: true });
    repo.write('release.config.json', JSON.stringify({ artifacts }));
    const undeclared = await runRelease(['build', '--only', 'cli', '--json'], { cwd: repo.dir });
    expect(undeclared.code, undeclared.stderr).toBe(0);
    rmSync(join(repo.dir, 'dist/own-cli.tgz'), { force: true });
    repo.write('release.config.json', JSON.stringify({ api: { minCliVersion: '0.3.0' }, artifacts }));
    const result = await runRelease(['build', '--only', 'cli', '--json'], {
      cwd: repo.dir,
      timeoutMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(repo.dir, 'dist/own-cli.tgz'))).toBe(true);
    // ... and 0.5.0 refuses it again, naming where the minimum came from.
    repo.write('release.config.json', JSON.stringify({ api: { minCliVersion: '0.5.0' }, artifacts }));
    const refused = await runRelease(['build', '--only', 'cli', '--json'], { cwd: repo.dir });
    expect(refused.code).toBe(1);
    expect(jsonOf<ErrorJson>(refused).error.message).toContain('api.minCliVersion in the config');
  }, 150_000);

  it('rejects an api.minCliVersion that is not X.Y.Z (exit 2)', async () => {
    repo.write('release.config.json', JSON.stringify({ api: { minCliVersion: 'v1.0' } }));
    const result = await runRelease(['build', '--only', 'cli'], { cwd: repo.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/api\.minCliVersion: expected the X\.Y\.Z/);
    repo.write('release.config.json', '{}');
  });
});

describe('svc update refuses an archive below the server minimum', () => {
  const scratch = new Scratch();
  const prefix = scratch.path('prefix');
  let api: StartedProcess;
  let installedHash: string;

  beforeAll(async () => {
    // The installed svc is a working v1.0.0; the API (min 1.0.0) serves an archive of v0.9.0.
    const [installed, served] = await Promise.all([
      archiveOf('v1.0.0', scratch.dir),
      archiveOf('v0.9.0', scratch.dir),
    ]);
    expect((await npmInstall(prefix, installed)).code).toBe(0);
    installedHash = sha256Of(packageFileIn(prefix));
    api = await startApi({ SERVICE_VERSION: 'v1.0.0', SERVICE_CLI_ARCHIVE: served });
  }, 180_000);
  afterAll(async () => {
    await api?.stop();
    scratch.cleanup();
  });

  it('says why, exits non-zero, and leaves the installed svc as it was', async () => {
    const env = baseEnv({ home: scratch.path('home'), binDirs: [join(prefix, 'bin')] });
    const result = await run(svcIn(prefix), ['update', '--url', api.url], { env });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(
      /serves svc v0\.9\.0, below its own min_cli_version 1\.0\.0: the server would block the CLI it serves, so it was not installed \(svc v1\.0\.0 is unchanged\)/,
    );
    expect(sha256Of(packageFileIn(prefix))).toBe(installedHash);
    const version = await run(svcIn(prefix), ['--version'], { env });
    expect(version.stdout.trim()).toBe('svc v1.0.0');
    // --dry-run says the same and installs nothing either.
    const dry = await run(svcIn(prefix), ['update', '--url', api.url, '--dry-run'], { env });
    expect(dry.code).not.toBe(0);
    expect(dry.stderr).toMatch(/below its own min_cli_version 1\.0\.0/);
  }, 60_000);
});
