import { describe, expect, it } from 'vitest';
import { validateConfig } from '../config/validate.ts';
import { detectProject, type ProjectFiles } from './detect.ts';
import { readDockerfile } from './dockerfile.ts';
import { planConfig } from './plan-config.ts';

/** A project as a listing and its contents: what detection is a function of. */
function files(contents: Record<string, string>): ProjectFiles {
  return { paths: Object.keys(contents), read: (path) => contents[path] };
}

const NODE_DOCKERFILE = `ARG BASE_IMAGE
FROM \${BASE_IMAGE}
ENV SERVICE_VERSION=\${SERVICE_VERSION} PORT=8080
COPY server.mjs /srv/api/server.mjs
USER 65534:65534
EXPOSE 8080/tcp
ENTRYPOINT ["/usr/local/bin/node", "/srv/api/server.mjs"]
`;

const PYTHON_DOCKERFILE = `FROM python:3.12-slim AS build
RUN pip wheel . -w /wheels
FROM python:3.12-slim AS runtime
COPY --from=build /wheels /wheels
CMD ["python", "-m", "app"]
`;

describe('readDockerfile', () => {
  it('names the stages and turns a simple node stage into a daemonless recipe', () => {
    const facts = readDockerfile(NODE_DOCKERFILE);
    expect(facts.targets).toEqual([]);
    expect(facts.recipe).toEqual({
      copies: [{ from: 'server.mjs', to: '/srv/api/server.mjs' }],
      entrypoint: ['/usr/local/bin/node', '/srv/api/server.mjs'],
      env: { PORT: '8080' },
      user: '65534:65534',
      exposedPorts: ['8080/tcp'],
    });
  });

  it('says why a stage needs the docker engine', () => {
    const facts = readDockerfile(PYTHON_DOCKERFILE);
    expect(facts.targets).toEqual(['build', 'runtime']);
    expect(facts.recipe).toEqual({ unsupported: 'it starts FROM python:3.12-slim, not the node base' });
    expect(readDockerfile('FROM node:20\nRUN npm ci\nCMD ["node", "x.js"]\n').recipe).toEqual({
      unsupported: 'it runs RUN while building',
    });
  });
});

describe('detectProject', () => {
  it('finds Dockerfiles, package.json bins and a web build, a pyproject CLI, compose services and the CI', () => {
    const detection = detectProject(
      files({
        'package.json': JSON.stringify({
          name: '@acme/shop',
          bin: { shop: 'bin/shop.js' },
          scripts: { build: 'tsc', 'build:client': 'vite build' },
        }),
        'api/Dockerfile': NODE_DOCKERFILE,
        'Dockerfile.jobs': PYTHON_DOCKERFILE,
        'tools/pyproject.toml':
          '[project]\nname = "shop-admin"\n\n[project.scripts]\nshop-admin = "admin:main"\n',
        'compose.yaml':
          'services:\n  api:\n    build: ./api\n  jobs:\n    build:\n      context: .\n      dockerfile: Dockerfile.jobs\n      target: runtime\n  db:\n    image: postgres:16\n',
        '.github/workflows/test.yml': 'on: push\n',
        'scripts/build-cli.sh': 'tar -czf dist/shop-cli.tar.gz bin\n',
      }),
    );
    expect(detection.name).toBe('@acme/shop');
    expect(detection.dockerfiles.map((d) => [d.path, d.facts.targets])).toEqual([
      ['Dockerfile.jobs', ['build', 'runtime']],
      ['api/Dockerfile', []],
    ]);
    expect(detection.nodeBins).toEqual([{ dir: '.', package: '@acme/shop', bins: ['shop'] }]);
    expect(detection.webBuild).toEqual({ dir: '.', script: 'build:client', command: 'vite build' });
    expect(detection.pythonClis).toEqual([{ dir: 'tools', project: 'shop-admin', scripts: ['shop-admin'] }]);
    expect(detection.compose[0]!.services).toEqual([
      { name: 'api', build: { context: './api', args: {} } },
      { name: 'jobs', build: { context: '.', dockerfile: 'Dockerfile.jobs', target: 'runtime', args: {} } },
      { name: 'db', image: 'postgres:16' },
    ]);
    expect(detection.buildScripts).toEqual([
      {
        artifact: 'cli',
        path: 'scripts/build-cli.sh',
        command: ['sh', 'scripts/build-cli.sh'],
        archive: 'dist/shop-cli.tar.gz',
      },
    ]);
    expect(detection.ci).toBe('github');
  });

  it('finds a GitLab pipeline, and Node folders without a Dockerfile', () => {
    const detection = detectProject(
      files({
        '.gitlab-ci.yml': 'stages: [test]\n',
        'worker/main.mjs': '',
        'docs/index.js': '',
        'scripts/build-worker.mjs': "outfile: 'worker/dist/main.mjs'",
      }),
    );
    expect(detection.ci).toBe('gitlab');
    expect(detection.nodeFolders).toEqual([{ dir: 'worker', entry: 'dist/main.mjs' }]);
  });
});

describe('planConfig', () => {
  it('names artifacts after compose services, guesses roles, drops the roles not found, and validates', () => {
    const detection = detectProject(
      files({
        'backend/Dockerfile': NODE_DOCKERFILE,
        'Dockerfile.jobs': PYTHON_DOCKERFILE,
        'cli/pyproject.toml': '[project]\nname = "shop-cli"\n[project.scripts]\nshop = "shop:main"\n',
      }),
    );
    const plan = planConfig(detection, { name: 'Shop' });
    const artifacts = Object.fromEntries(plan.artifacts.map((a) => [a.name, a.value]));
    expect(artifacts['backend']).toMatchObject({ role: 'api', image: 'shop-backend', context: 'backend' });
    expect(artifacts['backend']).toHaveProperty('entrypoint');
    expect(artifacts['jobs']).toEqual({
      role: 'worker',
      image: 'shop-jobs',
      context: '.',
      dockerfile: 'Dockerfile.jobs',
    });
    expect(artifacts['web']).toBe(false);
    expect(artifacts['cli']).toMatchObject({
      package: 'shop-cli',
      installCommand: 'pipx install --force {url}',
      build: { archive: 'dist/shop-cli.tar.gz' },
    });
    expect(plan.guessed).toContain('artifacts.jobs: role worker, from its name');
    expect(plan.guessed).toContain(
      'artifacts.cli.build: python3 -m build --sdist, renamed to dist/shop-cli.tar.gz',
    );
    expect(() => validateConfig({ registry: plan.registry, artifacts }, 'plan')).not.toThrow();
  });

  it('with nothing found, drops every role and says so', () => {
    const plan = planConfig(detectProject(files({ 'README.md': '# x' })), {
      name: 'x',
      registry: 'ghcr.io/acme',
    });
    expect(plan.artifacts.map((a) => [a.name, a.value])).toEqual([
      ['api', false],
      ['worker', false],
      ['web', false],
      ['cli', false],
    ]);
    expect(plan.registry).toBe('ghcr.io/acme');
  });
});
