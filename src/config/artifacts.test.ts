import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.ts';
import { artifactWithRole, cliArtifact, imageArtifactNames, imageArtifacts } from './artifacts.ts';
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

  it('refuses a role used twice, one image for two artifacts, and cliArchive off the api', () => {
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
      'artifacts.web.image: "service-web" is already the image of artifacts.scheduler',
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
