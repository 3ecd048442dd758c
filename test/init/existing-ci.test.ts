import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { GO_SERVICE, PNPM_MONOREPO, PYTHON_VITE, type Shape } from './existing-ci-shapes.ts';

// `release init` in repositories whose CI already releases their images (the three shapes of
// existing-ci-shapes.ts, made as git repositories with their tags): the production images only,
// with the names, contexts, targets and roles the CI and the compose file give them; the CLI by
// its package and bin; version variables from the build args CI sets; a config `release build
// --dry-run` accepts as written.

const repos: GitRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

function repoOf(shape: Shape): GitRepo {
  const repo = GitRepo.create('existing-ci-');
  repos.push(repo);
  for (const [path, text] of Object.entries(shape.files)) {
    mkdirSync(dirname(join(repo.dir, path)), { recursive: true });
    repo.write(path, text);
  }
  repo.commit('the service');
  for (const tag of shape.tags) {
    repo.commit(tag);
    repo.tag(tag);
  }
  return repo;
}

const release = (repo: GitRepo, args: string[]) => runRelease(args, { cwd: repo.dir, timeoutMs: 240_000 });

type Config = {
  registry: string;
  versionVariables?: { server: string[]; client: string[] };
  artifacts: Record<string, false | Record<string, unknown>>;
};

/** init (JSON config, to read it back), then build --dry-run on what it wrote. */
async function initAndDryRun(
  shape: Shape,
): Promise<{ config: Config; report: { found: string[]; todo: string[]; guessed: string[] } }> {
  const repo = repoOf(shape);
  const init = await release(repo, ['init', '--yes', '--json', '--format', 'json', '--ci', 'none']);
  expect(init.code, init.stderr).toBe(0);
  const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8')) as Config;
  const dryRun = await release(repo, ['build', '--dry-run', '--json']);
  expect(dryRun.code, `${dryRun.stdout}\n${dryRun.stderr}`).toBe(0);
  const verdict = jsonOf<{ usable: string[] }>(dryRun);
  expect(verdict.usable).toContain('docker');
  return { config, report: jsonOf(init) };
}

/** The image artifacts: key -> the keys that say what is built and run. */
function images(config: Config): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, value] of Object.entries(config.artifacts)) {
    if (!value || name === 'cli') continue;
    out[name] = Object.fromEntries(
      ['role', 'image', 'context', 'dockerfile', 'target', 'command', 'buildArgs']
        .filter((k) => k in value)
        .map((k) => [k, value[k]]),
    );
  }
  return out;
}

describe('release init where CI already releases', () => {
  it('a Python API and a Vite client: the images CI pushes, the roles the compose file runs by command', async () => {
    const { config, report } = await initAndDryRun(PYTHON_VITE);
    expect(config.registry).toBe('ghcr.io/acme');
    expect(images(config)).toEqual({
      api: {
        image: 'ledger-api',
        context: '.',
        dockerfile: 'api/Dockerfile',
        command: ['gunicorn', 'ledger.app:app', '--bind', '0.0.0.0:8000'],
      },
      // A migration run once before the API is a one-shot job of the API's image.
      init: { role: 'job', image: 'ledger-api', command: ['python', '-m', 'ledger.migrate'] },
      worker: { image: 'ledger-api', command: ['celery', '-A', 'ledger.tasks', 'worker'] },
      scheduler: { role: 'worker', image: 'ledger-api', command: ['celery', '-A', 'ledger.tasks', 'beat'] },
      client: { role: 'web', image: 'ledger-client', context: 'client', target: 'production' },
    });
    expect(config.versionVariables).toEqual({ server: ['LEDGER_VERSION'], client: ['VITE_LEDGER_VERSION'] });
    // The build that only loads a test image is not a release's, and says so.
    expect(report.found.join('\n')).toMatch(/job test-image .*pushes nothing/);
  });

  it('a Go service: build/package/*.dockerfile images of the pre-release workflow, not its dev and e2e variants; the CLI under cmd/, never the example', async () => {
    const { config, report } = await initAndDryRun(GO_SERVICE);
    expect(config.registry).toBe('ghcr.io/acme/relay');
    const { lite: _lite, ...built } = images(config);
    expect(built).toEqual({
      api: {
        image: 'relay-api',
        context: '.',
        dockerfile: 'build/package/servers.dockerfile',
        buildArgs: { SERVER_TARGET: 'api' },
      },
      engine: {
        image: 'relay-engine',
        context: '.',
        dockerfile: 'build/package/servers.dockerfile',
        buildArgs: { SERVER_TARGET: 'engine' },
      },
      frontend: {
        role: 'web',
        image: 'relay-frontend',
        context: '.',
        dockerfile: 'build/package/frontend.dockerfile',
      },
    });
    // Built FROM an image another CI build makes first: the value kept (build --dry-run needs
    // one), and said.
    expect(config.artifacts['lite']).toMatchObject({ buildArgs: { RELAY_API_IMAGE: 'relay-api-tmp' } });
    expect(report.todo.join('\n')).toMatch(
      /lite\.buildArgs\.RELAY_API_IMAGE: the repository's CI sets it to relay-api-tmp/,
    );
    delete (config.artifacts as Record<string, unknown>)['lite'];
    expect(config.versionVariables?.server).toEqual(['VERSION']);
    expect(config.artifacts['cli']).toMatchObject({ package: 'relay-cli', bin: 'relay' });
    expect(JSON.stringify(config)).not.toContain('quickstart');
    const found = report.found.join('\n');
    expect(found).toMatch(/relay-api-dev is not a release image/);
    expect(found).toMatch(/relay-e2e-python is not a release image/);
  });

  it('a pnpm monorepo: four targets of one Dockerfile, deprecated profiles and a second profile of one container left out, the CLI of its own version line', async () => {
    const { config, report } = await initAndDryRun(PNPM_MONOREPO);
    expect(images(config)).toEqual({
      'hopper-backend': expect.objectContaining({
        context: '.',
        dockerfile: 'prod.Dockerfile',
        target: 'backend',
      }),
      'hopper-app': expect.objectContaining({ context: '.', dockerfile: 'prod.Dockerfile', target: 'app' }),
      'hopper-sh-admin': expect.objectContaining({
        context: '.',
        dockerfile: 'prod.Dockerfile',
        target: 'sh_admin',
      }),
      'hopper-aio': expect.objectContaining({ context: '.', dockerfile: 'prod.Dockerfile', target: 'aio' }),
      // Its `sh -c "…"` line is written as the command it runs (the matcher reads both forms alike),
      // and a migration is a one-shot job of the backend's image, named as its service is (already
      // for the project: not prefixed with the root package's name, hopper-app).
      'hopper-migrate': expect.objectContaining({
        role: 'job',
        image: 'hopper-backend',
        command: ['pnpm', 'exec', 'prisma', 'migrate', 'deploy'],
      }),
    });
    expect(config.artifacts['cli']).toMatchObject({ package: '@acme/cli', bin: 'hop' });
    const found = report.found.join('\n');
    expect(found).toMatch(/hopper-old-backend: not an artifact \(profile "deprecated"\)/);
    expect(found).toMatch(/hopper-aio-no-db.*the same container as hopper-aio under another profile/);
    expect(found).toMatch(
      /@acme\/cli|hopper-cli\/package\.json: version 0\.14\.2, not one of the repository's tags \(newest 2026\.6\.0\)/,
    );
  });
});
