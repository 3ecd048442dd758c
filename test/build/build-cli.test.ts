import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { writeReferenceConfig } from '../helpers/reference-config.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// `release build` refusals and the cheap paths: no image engine is involved in any of these.

interface ErrorJson {
  error: { code: string; message: string; hint?: string; exitCode: number };
}

describe('release build: input and refusals', () => {
  const repos: GitRepo[] = [];
  const stamped = async (config?: Record<string, unknown>) => {
    const repo = GitRepo.create('build-cli-');
    repos.push(repo);
    writeReferenceConfig(repo.dir, config);
    repo.commit('one');
    repo.tag('v3.1.0');
    const stamp = await runRelease(['stamp'], { cwd: repo.dir });
    expect(stamp.code, stamp.stderr).toBe(0);
    return repo;
  };
  afterEach(() => {
    for (const repo of repos.splice(0)) repo.remove();
  });

  it('exits 2 before doing anything when --only names an unknown artifact', async () => {
    const repo = await stamped();
    const result = await runRelease(['build', '--only', 'api,db', '--json'], { cwd: repo.dir });
    expect(result.code).toBe(2);
    expect(jsonOf<ErrorJson>(result).error).toMatchObject({ code: 'ONLY_INVALID', exitCode: 2 });
    expect(result.stderr).toMatch(/hint: name one or more of api, worker, web, cli/);
  });

  it('exits 2 for an engine it does not know', async () => {
    const repo = await stamped();
    const result = await runRelease(['build', '--engine', 'podman'], { cwd: repo.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Allowed choices are docker, oci/);
  });

  it('exits 2 with the remedy when there is no release record', async () => {
    const repo = GitRepo.create('build-norecord-');
    repos.push(repo);
    // A config that declares what to build (without one, `BUILD_NOTHING_DECLARED` comes first).
    writeReferenceConfig(repo.dir);
    repo.commit('one');
    const result = await runRelease(['build', '--engine', 'oci', '--json'], { cwd: repo.dir });
    expect(result.code).toBe(2);
    expect(jsonOf<ErrorJson>(result).error.code).toBe('RECORD_MISSING');
    expect(result.stderr).toMatch(/hint: run `release stamp` first/);
  });

  it('exits 2 for a SOURCE_DATE_EPOCH that is not a number, and an invalid base in the config', async () => {
    const repo = await stamped();
    const epoch = await runRelease(['build', '--engine', 'oci', '--json'], {
      cwd: repo.dir,
      env: { SOURCE_DATE_EPOCH: 'yesterday' },
    });
    expect(epoch.code).toBe(2);
    expect(jsonOf<ErrorJson>(epoch).error.code).toBe('SOURCE_DATE_EPOCH_INVALID');

    // `node:20` is a base as Docker names it (Docker Hub's library/node:20); a space is no name.
    writeReferenceConfig(repo.dir, { artifacts: { api: { base: 'node 20' } } });
    // A fresh process: vitest's module runner keeps the config module of the first run, query or
    // not, so the rewritten file would not be read in process (plain Node reads it afresh).
    const config = await runRelease(['build', '--engine', 'oci'], { cwd: repo.dir, subprocess: true });
    expect(config.code).toBe(2);
    expect(config.stderr).toMatch(/artifacts\.api\.base: expected an image as Docker names it/);
  });

  it('--only cli builds just the archive; SERVICE_VERSION wins over the stamp, with a warning', async () => {
    const repo = await stamped();
    const result = await runRelease(['build', '--only', 'cli', '--json'], {
      cwd: repo.dir,
      env: { SERVICE_VERSION: 'v3.1.1' },
    });
    expect(result.code, result.stderr).toBe(0);
    const out = jsonOf<{
      tag: string;
      engine: null;
      images: object;
      cli: { archive: string; sha256: string };
      warnings: string[];
    }>(result);
    expect(out).toMatchObject({ tag: 'v3.1.1', engine: null, images: {} });
    expect(out.warnings.join()).toMatch(
      /SERVICE_VERSION gives v3\.1\.1 but the release record was stamped v3\.1\.0/,
    );
    const pkg = JSON.parse(
      execFileSync('tar', ['-xzOf', join(repo.dir, out.cli.archive), 'package/package.json'], {
        encoding: 'utf8',
      }),
    );
    expect(pkg.version).toMatch(/^v?3\.1\.1$/);
    const record = JSON.parse(readFileSync(join(repo.dir, 'dist/release.json'), 'utf8'));
    expect(record.artifacts.cli).toMatchObject({
      archive: 'dist/service-cli.tar.gz',
      sha256: out.cli.sha256,
    });
    expect(record.artifacts.api.digest).toBeUndefined();
  });

  it('exits 3 when a registry base cannot be read, and leaves the record untouched', async () => {
    const repo = await stamped({ artifacts: { worker: { base: '127.0.0.1:9/base/node:20' } } });
    const before = readFileSync(join(repo.dir, 'dist/release.json'), 'utf8');
    const result = await runRelease(['build', '--engine', 'oci', '--only', 'worker', '--json'], {
      cwd: repo.dir,
    });
    expect(result.code).toBe(3);
    expect(jsonOf<ErrorJson>(result).error.code).toBe('BASE_IMAGE_UNREADABLE');
    expect(readFileSync(join(repo.dir, 'dist/release.json'), 'utf8')).toBe(before);
  });
});
