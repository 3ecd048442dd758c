import { describe, expect, it } from 'vitest';
import { validateConfig } from '../config/validate.ts';
import type { BaseContext } from '../pipeline/context.ts';
import { type DeploymentFlags, deploymentTargets, type TargetWording } from './deployment-targets.ts';

// The target builder verify and watch share; the Compose reading itself is tested on a real
// project in test/watch/watch-compose.test.ts.

const wording = (command: 'verify' | 'watch'): TargetWording => ({
  command,
  noUrl: { message: 'which deployment?', hint: `release ${command} --url …` },
  allHint: 'drop them',
});

function base(deployments: unknown[] = [], artifacts?: unknown): BaseContext {
  return {
    cwd: '/srv',
    configDir: '/srv/conf',
    config: validateConfig({ deployments, ...(artifacts ? { artifacts } : {}) }, 'test'),
    env: {},
    dryRun: false,
    json: false,
    warnings: [],
  };
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: { code?: string }) => error.code,
  );
}

describe('deploymentTargets', () => {
  it.each<[string, DeploymentFlags]>([
    ['--web-url', { webUrl: 'http://w' }],
    ['--worker-url', { workerUrl: 'http://w/healthz' }],
    ['--docker', { docker: true }],
    ['--docker-host', { dockerHost: 'unix:///x.sock' }],
    ['--compose', { compose: ['a.yml'] }],
    ['--project-name', { projectName: 'shop' }],
    ['--url-per-node', { urlPerNode: true }],
    ['--name', { name: 'prod' }],
  ])('--all refuses %s beside it, in the words of the command asking', async (_, flags) => {
    const config = base([{ name: 'a', url: 'http://a' }]);
    for (const command of ['verify', 'watch'] as const) {
      expect(await codeOf(deploymentTargets({ all: true, ...flags }, config, wording(command)))).toBe(
        `${command.toUpperCase()}_ALL_WITH_TARGET`,
      );
    }
  });

  it('--all: each configured deployment by name and URLs, a worker URL read over its compose project', async () => {
    const targets = await deploymentTargets(
      { all: true },
      base([
        { name: 'a', url: 'http://a', webUrl: 'http://a/web', services: { api: 'a_api', worker: 'a_w' } },
        // workerUrl wins: the Compose CLI is not asked about files that need not even exist.
        { name: 'b', url: 'http://b', workerUrl: 'http://b:8081/healthz', compose: { files: ['none.yml'] } },
      ]),
      wording('watch'),
    );
    expect(targets).toEqual([
      { name: 'a', url: 'http://a', webUrl: 'http://a/web' },
      { name: 'b', url: 'http://b', workerUrl: 'http://b:8081/healthz' },
    ]);
  });

  it('a configured compose file that is not there is refused before anything is read', async () => {
    const config = base([{ name: 'c', url: 'http://c', compose: { files: ['missing.yml'] } }]);
    expect(await codeOf(deploymentTargets({ all: true }, config, wording('watch')))).toBe(
      'COMPOSE_FILE_MISSING',
    );
  });

  it('without --all: one target from the flags, URLs checked and trimmed, the engine when asked', async () => {
    const [target] = await deploymentTargets(
      { url: 'http://api:8080/', dockerHost: 'unix:///d.sock', urlPerNode: true, name: 'prod' },
      base(),
      wording('watch'),
    );
    expect(target).toEqual({
      name: 'prod',
      url: 'http://api:8080',
      engine: { name: 'docker', host: 'unix:///d.sock' },
      urlPerNode: true,
    });
  });

  it.each<[string, DeploymentFlags, string]>([
    ['no --url', {}, 'NO_URL'],
    ['--all and no deployments', { all: true }, 'NO_DEPLOYMENTS'],
    ['--url-per-node without an engine', { url: 'http://a', urlPerNode: true }, 'URL_PER_NODE'],
    ['--project-name without --compose', { url: 'http://a', projectName: 'p' }, 'PROJECT_WITHOUT_COMPOSE'],
  ])('%s: a usage error named for the command', async (_, flags, code) => {
    for (const command of ['verify', 'watch'] as const) {
      expect(await codeOf(deploymentTargets(flags, base(), wording(command)))).toBe(
        `${command.toUpperCase()}_${code}`,
      );
    }
  });

  it('--docker and no --url: the API is looked for on the engine; one that cannot be asked is a usage error saying so', async () => {
    const flags = { docker: true, dockerHost: 'unix:///nonexistent/docker.sock' };
    const artifacts = { api: { image: 'acme-api', context: 'api' } };
    const error = await deploymentTargets(flags, base([], artifacts), wording('verify')).then(
      () => undefined,
      (e: { code?: string; message: string }) => e,
    );
    expect(error?.code).toBe('VERIFY_NO_URL');
    expect(error?.message).toMatch(
      /--url was not given, and docker unix:\/\/\/nonexistent\/docker\.sock could not be asked/,
    );
  });

  describe('several web clients (an app and an admin dashboard)', () => {
    const artifacts = {
      api: { image: 'acme-api', context: 'api' },
      worker: false,
      app: { role: 'web', image: 'acme-app', context: 'apps/web' },
      admin: { role: 'web', image: 'acme-admin', context: 'apps/admin' },
    };

    it('reads each at its --web-url name=URL, for either command; a bare URL names the choices', async () => {
      for (const command of ['verify', 'watch'] as const) {
        const [target] = await deploymentTargets(
          { url: 'http://api', webUrl: ['app=http://app/', 'admin=http://admin'] },
          base([], artifacts),
          wording(command),
        );
        expect(target).toEqual({ url: 'http://api', webUrls: { app: 'http://app', admin: 'http://admin' } });
        expect(
          await codeOf(
            deploymentTargets(
              { url: 'http://api', webUrl: ['http://app'] },
              base([], artifacts),
              wording(command),
            ),
          ),
        ).toBe(`${command.toUpperCase()}_WEB_URL_AMBIGUOUS`);
      }
    });

    it('--all: each deployment with its webUrls; --web-url beside --all refused', async () => {
      const config = base(
        [{ name: 'prod', url: 'http://api', webUrls: { app: 'http://app', admin: 'http://admin/' } }],
        artifacts,
      );
      expect(await deploymentTargets({ all: true }, config, wording('watch'))).toEqual([
        { name: 'prod', url: 'http://api', webUrls: { app: 'http://app', admin: 'http://admin' } },
      ]);
      expect(
        await codeOf(deploymentTargets({ all: true, webUrl: ['app=http://a'] }, config, wording('verify'))),
      ).toBe('VERIFY_ALL_WITH_TARGET');
    });

    it('the config refuses webUrls naming no web artifact, and webUrl beside webUrls', () => {
      expect(() =>
        base([{ name: 'p', url: 'http://a', webUrl: 'http://w', webUrls: { docs: 'http://d' } }], artifacts),
      ).toThrow(
        expect.objectContaining({
          problems: [
            "deployments.0.webUrl: give the web clients' URLs in webUrls only (leave webUrl out)",
            'deployments.0.webUrls.docs: expected the name of a web artifact (admin, app)',
          ],
        }),
      );
    });
  });

  it('a URL that is not http(s) is refused for either command', async () => {
    expect(await codeOf(deploymentTargets({ url: 'ftp://a' }, base(), wording('watch')))).toBe(
      'VERIFY_BAD_URL',
    );
  });
});
