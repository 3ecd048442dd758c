import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.ts';
import {
  artifactWithRole,
  builderOf,
  builtImageArtifacts,
  cliArtifact,
  declaredCliArtifact,
  hasWebClient,
  imageArtifactNames,
  imageArtifacts,
  imagesWithRoles,
  rolesOfImage,
  webClients,
} from './artifacts.ts';
import { validateConfig } from './validate.ts';

const problemsOf = (raw: unknown): string[] => {
  try {
    validateConfig(raw, 'release.config.ts');
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    return (error as ConfigError).problems;
  }
  throw new Error('expected the config to be refused');
};

describe('artifacts', () => {
  it('takes a role from the standard keys, keeps extra images, and orders api, worker, web, extras', () => {
    const config = validateConfig(
      {
        artifacts: {
          scheduler: { context: '.', dockerfile: 'Dockerfile.scheduler' },
          web: { image: 'acme-web', files: [{ from: 'web/dist', to: '/srv' }], entrypoint: ['/srv/run'] },
          api: { image: 'acme-api', context: 'api' },
          cli: { package: '@acme/cli', build: { command: ['sh', 'build.sh'], archive: 'out/cli.tgz' } },
        },
      },
      'x',
    );
    expect(imageArtifactNames(config)).toEqual(['api', 'worker', 'web', 'scheduler']);
    expect(artifactWithRole(config, 'web')?.image).toBe('acme-web');
    expect(config.artifacts['scheduler']).toMatchObject({ kind: 'image', image: 'scheduler' });
    expect(config.artifacts['scheduler']).not.toHaveProperty('role');
    // A role nobody declares keeps its default image, so stamp and verify still know it.
    expect(artifactWithRole(config, 'worker')?.image).toBe('service-worker');
    expect(cliArtifact(config)).toMatchObject({
      package: '@acme/cli',
      installCommand: 'npm install -g {url}',
    });
  });

  it('lets any key take a role, and false drop one', () => {
    const config = validateConfig(
      { artifacts: { backend: { role: 'api', image: 'backend' }, worker: false, tool: { role: 'cli' } } },
      'x',
    );
    expect(imageArtifacts(config).map((a) => [a.name, a.role])).toEqual([
      ['backend', 'api'],
      ['web', 'web'],
    ]);
    expect(cliArtifact(config)?.name).toBe('tool');
  });

  it('refuses a single role used twice, a default on a declared image, and cliArchive off the api', () => {
    expect(
      problemsOf({
        artifacts: {
          api: {},
          backend: { role: 'api', image: 'other' },
          scheduler: { image: 'service-web', cliArchive: 'x.tgz' },
        },
      }),
    ).toEqual([
      'artifacts.backend.role: the role "api" is already taken by artifacts.api',
      'artifacts.scheduler.cliArchive: only the api artifact serves the CLI archive',
      // web is not declared: its default image is the one taken.
      'artifacts.web.image: "service-web" is already the image of artifacts.scheduler (declare web with its role and command to run it from that image, or give it another image)',
    ]);
    expect(problemsOf({ artifacts: { cli: {}, tool: { role: 'cli', package: 'x' } } })).toEqual([
      'artifacts.tool.role: the role "cli" is already taken by artifacts.cli',
    ]);
  });

  it('takes several web clients, each its own image (an app and an admin dashboard)', () => {
    const artifacts = {
      api: { image: 'acme-api', context: 'api' },
      worker: false,
      admin: { role: 'web', image: 'acme-admin', context: 'apps/admin' },
      web: { image: 'acme-web', context: 'apps/web' },
    };
    const config = validateConfig({ artifacts }, 'x');
    expect(webClients(config).map((a) => [a.name, a.image])).toEqual([
      ['web', 'acme-web'],
      ['admin', 'acme-admin'],
    ]);
    expect(builtImageArtifacts(config).map((a) => a.name)).toEqual(['api', 'web', 'admin']);
    // Two web clients sharing one image cannot be told apart by a URL's image: still refused.
    expect(
      problemsOf({ artifacts: { web: { image: 'site' }, admin: { role: 'web', image: 'site' } } }),
    ).toEqual([
      'artifacts.admin.command: artifacts.web also runs "site" with its default command; give every role of one image but one the command its containers run',
    ]);
  });

  it('takes one-shot jobs of the API image, several of them, built once, ordered after the workers', () => {
    const config = validateConfig(
      {
        artifacts: {
          api: { image: 'acme-app', dockerfile: 'Dockerfile' },
          migrate: {
            role: 'job',
            image: 'acme-app',
            command: ['pnpm', 'exec', 'prisma', 'migrate', 'deploy'],
          },
          seed: { role: 'job', image: 'acme-app', command: ['node', 'seed.js'] },
          worker: { image: 'acme-app', command: ['node', 'worker.js'] },
          web: { image: 'acme-web', files: [{ from: 'web/dist', to: '/srv' }], entrypoint: ['/srv/run'] },
          cli: false,
        },
      },
      'x',
    );
    expect(imageArtifactNames(config)).toEqual(['api', 'worker', 'web', 'migrate', 'seed']);
    // With an admin dashboard beside the app: two web clients and a job, accepted together.
    const withAdmin = validateConfig(
      {
        artifacts: {
          api: { image: 'acme-app', dockerfile: 'Dockerfile' },
          migrate: { role: 'job', image: 'acme-app', command: ['node', 'migrate.js'] },
          web: { image: 'acme-web', dockerfile: 'web/Dockerfile' },
          admin: { role: 'web', image: 'acme-admin', dockerfile: 'admin/Dockerfile' },
          cli: false,
        },
      },
      'x',
    );
    expect(Object.values(withAdmin.artifacts).map((a) => [a.name, a.role])).toEqual(
      expect.arrayContaining([
        ['migrate', 'job'],
        ['web', 'web'],
        ['admin', 'web'],
      ]),
    );
    expect(builtImageArtifacts(config).map((a) => a.name)).toEqual(['api', 'web']);
    expect(config.artifacts['migrate']).toMatchObject({ role: 'job', roleOf: 'api' });
    // A job is never a role's default: a config without one has none.
    expect(Object.keys(validateConfig({ artifacts: { api: {} } }, 'x').artifacts)).not.toContain('job');
    expect(problemsOf({ artifacts: { api: {}, migrate: { role: 'cron' } } })).toEqual([
      'artifacts.migrate.role: expected "api", "worker", "web" or "job" (or no role for an extra image)',
    ]);
  });

  it('has a web client to check when it declares one, or declares no image at all', () => {
    const of = (artifacts: Record<string, unknown>) => hasWebClient(validateConfig({ artifacts }, 'x'));
    expect(of({})).toBe(true); // the reference service's shape: every role's default
    expect(of({ web: { image: 'acme-web' } })).toBe(true);
    expect(of({ api: { image: 'acme-app', context: '.' } })).toBe(false); // images, and no web among them
    expect(of({ web: false })).toBe(false);
  });

  describe('one image, several roles', () => {
    // Sentry's web, worker and cron share one image; so do a uvicorn API and its celery worker.
    const oneImage = {
      api: { role: 'api', image: 'acme-app', dockerfile: 'Dockerfile', buildArgs: { PY: '3.12' } },
      worker: { role: 'worker', image: 'acme-app', command: ['celery', '-A', 'acme', 'worker'] },
      scheduler: { role: 'worker', image: 'acme-app', command: ['celery', '-A', 'acme', 'beat'] },
    };

    it('builds the image once, from the artifact with the recipe, and keeps every role', () => {
      const config = validateConfig({ artifacts: { ...oneImage, web: false } }, 'x');
      expect(imageArtifactNames(config)).toEqual(['api', 'worker', 'scheduler']);
      expect(builtImageArtifacts(config).map((a) => a.name)).toEqual(['api']);
      expect(config.artifacts['worker']).toMatchObject({
        roleOf: 'api',
        command: ['celery', '-A', 'acme', 'worker'],
      });
      expect(config.artifacts['api']).not.toHaveProperty('roleOf');
      expect(rolesOfImage(config, 'acme-app').map((a) => [a.name, a.role])).toEqual([
        ['api', 'api'],
        ['worker', 'worker'],
        ['scheduler', 'worker'],
      ]);
      expect(builderOf(config, config.artifacts['scheduler'] as never).name).toBe('api');
      // Two workers: the one named for the role leads, as before there could be two.
      expect(artifactWithRole(config, 'worker')?.name).toBe('worker');
    });

    // Every place a release is judged counts images by this list: one entry per image, its roles named.
    it.each([
      [
        'one image, one role',
        { api: { image: 'acme-app' }, worker: false, web: false },
        [['api', 'acme-app', ['api']]],
      ],
      [
        'one image, two roles',
        { api: { image: 'acme-app' }, worker: { image: 'acme-app', command: ['acme', 'work'] }, web: false },
        [['api', 'acme-app', ['api', 'worker']]],
      ],
      [
        'one image, three roles',
        { ...oneImage, web: false },
        [['api', 'acme-app', ['api', 'worker', 'scheduler']]],
      ],
      [
        'two images, one shared by two roles',
        {
          api: { image: 'acme-app' },
          worker: { image: 'acme-worker' },
          scheduler: { role: 'worker', image: 'acme-worker', command: ['cron'] },
          web: { image: 'acme-web' },
        },
        [
          ['api', 'acme-app', ['api']],
          ['worker', 'acme-worker', ['worker', 'scheduler']],
          ['web', 'acme-web', ['web']],
        ],
      ],
      [
        'a web client and a job sharing one image',
        {
          api: { image: 'acme-api' },
          worker: { image: 'acme-api', command: ['work'] },
          web: { image: 'acme-web' },
          migrate: { role: 'job', image: 'acme-web', command: ['node', 'migrate.mjs'] },
        },
        [
          ['api', 'acme-api', ['api', 'worker']],
          ['web', 'acme-web', ['web', 'migrate']],
        ],
      ],
    ])('%s: each image once with its roles', (_, artifacts, expected) => {
      const config = validateConfig({ artifacts }, 'x');
      expect(imagesWithRoles(config).map((i) => [i.artifact, i.repository, i.roles])).toEqual(expected);
    });

    it('lets the recipe sit on any of them; with none, the api (first in role order) builds', () => {
      const config = validateConfig(
        {
          artifacts: {
            api: { image: 'acme-app', command: ['acme', 'serve'] },
            worker: { image: 'acme-app', context: '.', dockerfile: 'Dockerfile' },
            web: false,
          },
        },
        'x',
      );
      expect(builtImageArtifacts(config).map((a) => a.name)).toEqual(['worker']);
      expect(config.artifacts['api']).toMatchObject({ roleOf: 'worker' });
      const bare = validateConfig(
        {
          artifacts: {
            api: { image: 'app' },
            worker: { image: 'app', command: ['app', 'work'] },
            web: false,
          },
        },
        'x',
      );
      expect(builtImageArtifacts(bare).map((a) => a.name)).toEqual(['api']);
    });

    it('serves the CLI archive from the image an api role runs, whichever artifact builds it', () => {
      const config = validateConfig(
        {
          artifacts: {
            app: { image: 'app', context: '.', cliArchive: 'cli.tgz', minCliVersion: '1.0.0' },
            api: { image: 'app', command: ['app', 'api'] },
            web: false,
            worker: false,
          },
        },
        'x',
      );
      expect(config.artifacts['api']).toMatchObject({ roleOf: 'app', role: 'api' });
    });

    it('refuses two recipes for one image, and roles it cannot tell apart by command', () => {
      expect(
        problemsOf({
          artifacts: {
            ...oneImage,
            worker: {
              role: 'worker',
              image: 'acme-app',
              command: ['celery', 'worker'],
              dockerfile: 'Dockerfile.worker',
              env: { A: 'b' },
            },
          },
        }),
      ).toEqual([
        'artifacts.worker: "acme-app" is built by artifacts.api: a role run from it says only role, image and command (remove dockerfile, env)',
      ]);
      expect(
        problemsOf({
          artifacts: {
            ...oneImage,
            worker: { role: 'worker', image: 'acme-app' },
            cron: { role: 'worker', image: 'acme-app', command: ['celery', 'beat'] },
            beat: { role: 'worker', image: 'acme-app', command: ['celery', 'beat'] },
          },
        }),
      ).toEqual([
        'artifacts.worker.command: artifacts.api also runs "acme-app" with its default command; give every role of one image but one the command its containers run',
        'artifacts.beat.command: artifacts.cron runs "acme-app" with the same command; each role of one image needs its own',
      ]);
    });
  });

  it('knows a declared CLI from the default of a config that declares none', () => {
    expect(declaredCliArtifact(validateConfig({}, 'x'))).toBeUndefined();
    expect(cliArtifact(validateConfig({}, 'x'))?.package).toBe('service-cli');
    const config = validateConfig({ artifacts: { cli: { package: '@acme/cli', bin: 'acme' } } }, 'x');
    expect(declaredCliArtifact(config)).toMatchObject({ package: '@acme/cli', bin: 'acme' });
    expect(problemsOf({ artifacts: { cli: { bin: '../acme' } } })).toEqual([
      'artifacts.cli.bin: expected a command name like "acme", without a path',
    ]);
  });

  it('reports bad recipes as path: message, unknown keys included', () => {
    expect(
      problemsOf({
        artifacts: {
          api: { files: [{ from: '/abs', to: 'relative' }], entrypoint: [], dockerFile: 'x' },
          cli: { build: { command: 'sh build.sh', archive: 'a.tgz' }, installCommand: 'pipx install' },
          Bad: {},
        },
      }),
    ).toEqual(
      expect.arrayContaining([
        'artifacts.api.dockerFile: unknown key',
        'artifacts.api.files.0.from: expected a path relative to the config file',
        'artifacts.api.files.0.to: expected an absolute path in the image',
        'artifacts.api.entrypoint: expected at least the program to run',
        'artifacts.cli.build.command: expected an argv array such as ["sh", "scripts/build.sh"]',
        'artifacts.cli.installCommand: expected a command containing {url}',
        expect.stringMatching(/^artifacts\.Bad: expected an artifact name/),
      ]),
    );
  });
});
