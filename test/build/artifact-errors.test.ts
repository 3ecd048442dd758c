import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// What `release build` refuses in a project's own artifacts: each a `path: message` problem,
// exit 2, before anything is built, the record untouched and no image written. No engine needed:
// the explicit --engine is checked before it is reached.

interface ErrorJson {
  error: { code: string; message: string; exitCode: number };
}

describe('release build: artifacts that cannot be built as configured', () => {
  const repos: GitRepo[] = [];
  afterEach(() => {
    for (const repo of repos.splice(0)) repo.remove();
  });

  /** A stamped project with these files and this config; returns a build runner. */
  const project = async (config: unknown, files: Record<string, string> = {}) => {
    const repo = GitRepo.create('artifact-errors-');
    repos.push(repo);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(repo.dir, path)), { recursive: true });
      repo.write(path, content);
    }
    repo.write('release.config.json', JSON.stringify(config));
    repo.commit('one');
    repo.tag('v1.0.0');
    const stamp = await runRelease(['stamp'], { cwd: repo.dir });
    expect(stamp.code, stamp.stderr).toBe(0);
    const record = readFileSync(join(repo.dir, 'dist/release.json'), 'utf8');
    return {
      repo,
      async build(engine: 'docker' | 'oci', only?: string) {
        const result = await runRelease(
          ['build', '--engine', engine, ...(only ? ['--only', only] : []), '--json'],
          { cwd: repo.dir, env: { DOCKER_HOST: `unix://${join(repo.dir, 'no-engine.sock')}` } },
        );
        // Nothing written: the record as stamped, no image in the layout, no base made.
        expect(readFileSync(join(repo.dir, 'dist/release.json'), 'utf8')).toBe(record);
        expect(existsSync(join(repo.dir, '.release'))).toBe(false);
        return result;
      },
    };
  };

  const refusal = (result: { code: number; stdout: string; stderr: string }) => {
    expect(result.code, result.stderr).toBe(2);
    expect(jsonOf<ErrorJson>(result).error.exitCode).toBe(2);
    return result.stderr;
  };

  it('a missing Dockerfile and a missing context (docker engine)', async () => {
    const p = await project(
      {
        artifacts: {
          api: { context: 'api' },
          worker: { context: 'worker', dockerfile: 'worker/Containerfile' },
          web: { context: 'nowhere' },
          cli: false,
        },
      },
      { 'api/.keep': '', 'worker/Dockerfile': 'FROM scratch\n' },
    );
    const stderr = refusal(await p.build('docker'));
    expect(stderr).toContain('artifacts.api.context: the file "api/Dockerfile" does not exist');
    expect(stderr).toContain('artifacts.worker.dockerfile: the file "worker/Containerfile" does not exist');
    expect(stderr).toContain('artifacts.web.context: the folder "nowhere" does not exist');
  });

  it('files.from outside the project, and an artifact with no recipe for the engine', async () => {
    const p = await project({
      artifacts: {
        api: { files: [{ from: '../elsewhere', to: '/app' }], entrypoint: ['/app/run'] },
        worker: { context: '.' },
        web: {
          files: [{ from: 'web/dist', to: '/srv' }],
          entrypoint: ['/srv/run'],
          build: { command: ['true'] },
        },
        cli: false,
      },
    });
    const stderr = refusal(await p.build('oci'));
    expect(stderr).toMatch(/artifacts\.api\.files\.0\.from: "\.\.\/elsewhere" is outside the project/);
    expect(stderr).toContain('artifacts.worker: nothing says how the daemonless engine builds it');
    // web's files are made by its build command: not required before it has run.
    expect(stderr).not.toContain('artifacts.web');
  });

  it('an archive the CLI build command did not produce', async () => {
    const p = await project({
      artifacts: {
        cli: { package: 'acme-cli', build: { command: ['node', '-e', '0'], archive: 'dist/acme-cli.tgz' } },
      },
    });
    const stderr = refusal(await p.build('oci', 'cli'));
    expect(stderr).toContain('artifacts.cli.build.archive: the command did not produce "dist/acme-cli.tgz"');
  });

  it('an archive left from an earlier run that the command did not write again', async () => {
    const p = await project(
      { artifacts: { cli: { build: { command: ['node', '-e', '0'], archive: 'old/cli.tgz' } } } },
      { 'old/cli.tgz': 'stale' },
    );
    const stderr = refusal(await p.build('oci', 'cli'));
    expect(stderr).toContain('artifacts.cli.build.archive: the command did not write "old/cli.tgz"');
  });

  it('two recipes for one image, two roles of it without a command, and a role used twice', async () => {
    const p = await project({});
    p.repo.write(
      'release.config.json',
      JSON.stringify({
        artifacts: {
          api: { image: 'acme', context: 'api' },
          scheduler: { image: 'acme', context: 'scheduler' },
          cron: { image: 'acme' },
          backend: { role: 'api', image: 'other', context: 'api' },
        },
      }),
    );
    expect(refusal(await p.build('oci'))).toContain(
      'artifacts.scheduler: "acme" is built by artifacts.api: a role run from it says only role, image and command (remove context)',
    );
    p.repo.write(
      'release.config.json',
      JSON.stringify({
        artifacts: {
          api: { image: 'acme', context: 'api' },
          cron: { image: 'acme' },
          backend: { role: 'api', image: 'other', context: 'api' },
        },
      }),
    );
    const stderr = refusal(await p.build('oci'));
    expect(stderr).toContain('artifacts.backend.role: the role "api" is already taken by artifacts.api');
    expect(stderr).toContain(
      'artifacts.cron.command: artifacts.api also runs "acme" with its default command; give every role of one image but one the command its containers run',
    );
  });

  it('asks for no CLI recipe when the config declares no CLI (a service without one)', async () => {
    // Sentry-shaped: one image run as web, worker and cron, no CLI of its own.
    const p = await project(
      {
        artifacts: {
          api: { image: 'sentry', context: '.', dockerfile: 'Dockerfile', command: ['run', 'web'] },
          worker: { image: 'sentry', command: ['run', 'worker'] },
          cron: { role: 'worker', image: 'sentry', command: ['run', 'cron'] },
          web: false,
        },
      },
      { Dockerfile: 'FROM scratch\n' },
    );
    const dry = await runRelease(['build', '--dry-run', '--engine', 'docker', '--json'], { cwd: p.repo.dir });
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ usable: ['docker'], cli: null });
  });
});
