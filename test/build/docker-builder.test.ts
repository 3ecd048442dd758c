import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findDockerBuilder } from '../../src/build-engines/docker/docker-builder.ts';
import { isReleaseError } from '../../src/errors.ts';
import { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// Which docker CLI `release build --engine docker` builds with. The real CLIs of this machine: the
// docker 28 CLI first on PATH (/usr/local/bin) has no buildx, so its build cannot do BuildKit; the
// Debian 20.10 CLI (/usr/bin) has BuildKit built in. A docker with buildx is faked by a script on
// PATH that answers `--version` and `buildx version` (only the choice is tested with it; the
// builds in test/build/buildkit-*.test.ts use the real CLI).

const DOCKER_28 = '/usr/local/bin/docker';
const DOCKER_20 = '/usr/bin/docker';

let dir: string;
/** A folder holding a fake `docker` answering as a CLI of `version`, with buildx or not. */
const fakeDocker = (name: string, version: string, buildx: boolean) => {
  const bin = join(dir, name);
  mkdirSync(bin, { recursive: true });
  writeFileSync(
    join(bin, 'docker'),
    [
      '#!/bin/sh',
      `[ "$1" = --version ] && { echo "Docker version ${version}, build 0000000"; exit 0; }`,
      buildx
        ? '[ "$1 $2" = "buildx version" ] && { echo "github.com/docker/buildx v0.16.2 0000000"; exit 0; }'
        : `[ "$1" = buildx ] && { echo "docker: 'buildx' is not a docker command." >&2; exit 1; }`,
      'exit 1',
    ].join('\n'),
  );
  chmodSync(join(bin, 'docker'), 0o755);
  return bin;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'sr-docker-builder-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('findDockerBuilder', () => {
  it('passes over a docker 23+ without buildx for a later CLI with its own BuildKit (this machine)', async () => {
    const builder = await findDockerBuilder({ PATH: '/usr/local/bin:/usr/bin' });
    expect(builder).toMatchObject({ cli: DOCKER_20, kind: 'buildkit' });
    expect(builder.description).toMatch(/^docker 20\.10\.\d+ \(its own BuildKit\)$/);
  });

  it('takes buildx where the first docker on PATH has it', async () => {
    const bin = fakeDocker('buildx', '27.1.1', true);
    const builder = await findDockerBuilder({ PATH: `${bin}:/usr/local/bin:/usr/bin` });
    expect(builder).toEqual({
      cli: join(bin, 'docker'),
      kind: 'buildx',
      description: 'docker 27.1.1 with buildx v0.16.2',
    });
  });

  it.each([
    [
      'a docker 23+ without buildx',
      '24.0.7',
      false,
      /docker 24\.0\.7 has no buildx, and from 23 on its own build needs it/,
    ],
    ['a docker before BuildKit', '17.12.1', false, /docker 17\.12\.1 predates BuildKit/],
  ])('refuses %s when it is the only one, naming it and why', async (_, version, buildx, reason) => {
    const bin = fakeDocker(`only-${version}`, version, buildx);
    const error = await findDockerBuilder({ PATH: bin }).catch((caught: unknown) => caught);
    expect(isReleaseError(error) && error.code).toBe('DOCKER_BUILDKIT_MISSING');
    expect((error as Error).message).toContain(join(bin, 'docker'));
    expect((error as Error).message).toMatch(reason);
  });

  it('builds with the CLI DOCKER_CLI names, and only that one', async () => {
    expect(await findDockerBuilder({ PATH: '/usr/local/bin', DOCKER_CLI: DOCKER_20 })).toMatchObject({
      cli: DOCKER_20,
      kind: 'buildkit',
    });
    const refused = await findDockerBuilder({ PATH: '/usr/bin', DOCKER_CLI: DOCKER_28 }).catch(
      (e: unknown) => e,
    );
    expect(isReleaseError(refused) && refused.code).toBe('DOCKER_BUILDKIT_MISSING');
    expect(isReleaseError(refused) && refused.hint).toMatch(
      /DOCKER_CLI names a docker CLI that cannot build/,
    );
    const missing = await findDockerBuilder({ PATH: '/usr/bin', DOCKER_CLI: join(dir, 'nope/docker') }).catch(
      (e: unknown) => e,
    );
    expect((missing as Error).message).toMatch(/nope\/docker: cannot run it/);
  });

  it('says there is no docker at all on an empty PATH', async () => {
    const error = await findDockerBuilder({ PATH: join(dir, 'empty') }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/no docker on PATH/);
  });
});

describe('release build --dry-run --engine docker names the builder', () => {
  let repo: GitRepo;
  beforeAll(() => {
    repo = GitRepo.create('docker-builder-');
    repo.write('Dockerfile', 'FROM scratch\nARG SERVICE_VERSION\nCOPY Dockerfile /Dockerfile\n');
    repo.write(
      'release.config.json',
      JSON.stringify({ artifacts: { api: { context: '.' }, worker: false, web: false, cli: false } }),
    );
    repo.commit('one');
  });
  afterAll(() => repo?.remove());
  const dryRun = (env: Record<string, string>) =>
    runRelease(['build', '--dry-run', '--engine', 'docker', '--json'], {
      cwd: repo.dir,
      env: { DOCKER_HOST: `unix://${join(repo.dir, 'no-engine.sock')}`, ...env },
    });

  it('the one it would build with, and never "ready" when no CLI can build with BuildKit', async () => {
    const ok = await dryRun({ PATH: '/usr/local/bin:/usr/bin:/bin' });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    const verdict = jsonOf<{ usable: string[]; engines: { builder: string }[] }>(ok);
    expect(verdict.usable).toEqual(['docker']);
    expect(verdict.engines[0]!.builder).toMatch(
      /^docker 20\.10\.\d+\S* \(its own BuildKit\), \/usr\/bin\/docker$/,
    );

    const legacyOnly = await dryRun({ PATH: '/usr/local/bin:/bin', DOCKER_CLI: DOCKER_28 });
    expect(legacyOnly.code).toBe(2);
    const refused = jsonOf<{ usable: string[]; engines: { problems: string[] }[] }>(legacyOnly);
    expect(refused.usable).toEqual([]);
    expect(refused.engines[0]!.problems.join('\n')).toMatch(/no docker CLI here can build with BuildKit/);
    const text = await runRelease(['build', '--dry-run', '--engine', 'docker'], {
      cwd: repo.dir,
      env: { DOCKER_HOST: `unix://${join(repo.dir, 'no-engine.sock')}`, PATH: '/bin', DOCKER_CLI: DOCKER_28 },
    });
    expect(text.stdout).not.toContain('ready for');
    expect(text.stdout).toContain('docker: cannot build it as configured');
  });
});
