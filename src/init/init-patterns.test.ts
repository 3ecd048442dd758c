// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${VAR} in these strings is Compose and Dockerfile syntax
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../config/validate.ts';
import { readComposeFile } from './compose-file.ts';
import { detectProject, type ProjectFiles } from './detect.ts';
import { readDockerfile } from './dockerfile.ts';
import { planConfig } from './plan-config.ts';

// The patterns of real self-hosted services that `release init` got wrong, each reduced to a
// fixture: one image run as api, worker, scheduler and init job (by command); dev, test and
// override compose files beside the production one; a build context at the top of the repository;
// version build args and client variables (and a pinned tool version that is not one); YAML
// comments, anchors and merge keys; a context that leaves the repository.

function files(contents: Record<string, string>): ProjectFiles {
  const known = new Set(Object.keys(contents));
  for (const path of Object.keys(contents))
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) known.add(path.slice(0, i));
  return { paths: Object.keys(contents), read: (path) => contents[path], exists: (path) => known.has(path) };
}

const SERVICE = {
  'docker-compose.yml': `x-app: &app
  image: ghcr.io/acme/acme-app:\${TAG:-latest}
  env_file: .env
  restart: unless-stopped

services:
  api:
    <<: *app
    build:
      context: .
      dockerfile: api/Dockerfile
      args:
        APP_VERSION: \${APP_VERSION:-unknown}
        PIP_NO_CACHE: "1"
    command: gunicorn acme.wsgi
  worker:
    <<: *app
    command: celery -A acme worker
  scheduler:
    <<: *app
    command: celery -A acme beat
  init:
    <<: *app
    command: python -m acme.migrate
  client:
    image: ghcr.io/acme/acme-client:\${TAG:-latest}
    build:
      context: client
      target: production # the image nginx serves
  db:
    image: postgres:16
`,
  'docker-compose.dev.yml': `services:
  api:
    build:
      context: .
      dockerfile: api/Dockerfile.dev
  client:
    build:
      target: "" # Clear the production target from base compose file
  test-runner:
    build: ./tests
`,
  'docker-compose.test.yml': 'services:\n  playwright-runner:\n    build:\n      context: e2e\n',
  'docker-compose.override.yml': 'services:\n  api:\n    build:\n      dockerfile: api/Dockerfile.debug\n',
  'api/Dockerfile':
    'FROM python:3.12-slim\nARG APP_VERSION\nENV APP_VERSION=$APP_VERSION\nCOPY api/pyproject.toml /app/\nCOPY api/src /app/src\nRUN pip install /app\n',
  'api/Dockerfile.dev': 'FROM python:3.12\n',
  'api/Dockerfile.debug': 'FROM python:3.12\n',
  'api/pyproject.toml': '[project]\nname = "acme"\n[project.scripts]\nacme = "acme.cli:main"\n',
  'api/src/acme/__init__.py': '',
  'api/scripts/build_cli.sh': 'python -m build --sdist api/cli --outdir dist\n',
  'client/Dockerfile':
    'FROM node:22 AS base\nARG TURBO_VERSION=2.9.4\nFROM base AS development\nFROM base AS production\nARG VITE_APP_VERSION\nRUN npm run build\n',
  'tests/Dockerfile': 'FROM python:3.12\n',
  'e2e/Dockerfile': 'FROM mcr.microsoft.com/playwright\n',
};

describe('release init on a service whose image runs several roles', () => {
  const plan = planConfig(detectProject(files(SERVICE)), { name: 'acme' });
  const artifacts = Object.fromEntries(plan.artifacts.map((a) => [a.name, a.value]));

  it('reads only the production compose file, and says which it left out', () => {
    expect(Object.keys(artifacts).sort()).toEqual(['api', 'cli', 'client', 'init', 'scheduler', 'worker']);
    expect(plan.found).toContain(
      'skipped docker-compose.dev.yml: not read (not the production compose file; name it with --compose-file to use it)',
    );
    expect(
      plan.found.some((f) => f.startsWith('skipped tests/Dockerfile: not an artifact (under tests/)')),
    ).toBe(true);
    expect(
      plan.found.some((f) => f.startsWith('skipped api/Dockerfile.dev: not an artifact (a development')),
    ).toBe(true);
  });

  it('makes the services of one image roles of it, told apart by their command; the build context as written', () => {
    expect(artifacts['api']).toEqual({
      image: 'acme-app',
      command: ['gunicorn', 'acme.wsgi'],
      context: '.',
      dockerfile: 'api/Dockerfile',
      buildArgs: { PIP_NO_CACHE: '1' },
    });
    expect(artifacts['worker']).toEqual({ image: 'acme-app', command: ['celery', '-A', 'acme', 'worker'] });
    expect(artifacts['scheduler']).toEqual({
      role: 'worker',
      image: 'acme-app',
      command: ['celery', '-A', 'acme', 'beat'],
    });
    // A migration by its command: a one-shot job of the image.
    expect(artifacts['init']).toEqual({
      role: 'job',
      image: 'acme-app',
      command: ['python', '-m', 'acme.migrate'],
    });
    expect(() =>
      validateConfig({ registry: plan.registry, versionVariables: plan.versionVariables, artifacts }, 'plan'),
    ).not.toThrow();
    expect(artifacts['client']).toEqual({
      role: 'web',
      image: 'acme-client',
      context: 'client',
      target: 'production',
    });
  });

  it('offers the registry of the image: lines, and the version variables (not a pinned tool version)', () => {
    expect(plan.registry).toBe('ghcr.io/acme');
    expect(plan.guessed[0]).toMatch(
      /^registry: "ghcr.io\/acme", from the image: lines of docker-compose.yml/,
    );
    expect(plan.versionVariables).toEqual({ server: ['APP_VERSION'], client: ['VITE_APP_VERSION'] });
    expect(plan.found).toContain(
      "ARG TURBO_VERSION=2.9.4: a pinned tool version, not the service's (left alone)",
    );
  });

  it('never turns a YAML comment into a value', () => {
    expect(JSON.stringify(plan)).not.toContain('Clear the production target');
    const dev = readComposeFile(SERVICE['docker-compose.dev.yml']);
    expect(dev).toEqual({
      services: [
        { name: 'api', build: { context: '.', dockerfile: 'api/Dockerfile.dev', args: {} } },
        { name: 'client', build: { context: '.', args: {} } },
        { name: 'test-runner', build: { context: './tests', args: {} } },
      ],
    });
  });

  it('reads a compose file named with --compose-file instead, and the test one there', () => {
    const dev = planConfig(detectProject(files(SERVICE), ['docker-compose.test.yml']), {
      name: 'acme',
      composeFiles: ['docker-compose.test.yml'],
    });
    expect(dev.artifacts.filter((a) => a.value).map((a) => a.name)).toEqual(['playwright-runner', 'cli']);
  });
});

describe('a production compose file of images only, built by a build file beside it', () => {
  it('takes the build of the same service from docker-compose.build.yml, and skips the other Dockerfiles', () => {
    const plan = planConfig(
      detectProject(
        files({
          'docker-compose.yml':
            'services:\n  shop-worker:\n    image: docker.shop.example/shop/shop-worker:4\n    command: ["node", "worker.js"]\n  shop-web:\n    image: docker.shop.example/shop/shop:4\n  redis:\n    image: docker.io/redis:7\n',
          'docker-compose.build.yml':
            'services:\n  shop-web:\n    build:\n      dockerfile: ./web/Dockerfile\n      context: .\n  shop-worker:\n    build:\n      dockerfile: ./worker/Dockerfile\n      context: .\n',
          'docker-compose.dev.yml': 'services:\n  sandbox:\n    build: ./sandbox\n',
          'web/Dockerfile': 'FROM node:22 AS runner\nCOPY web/dist /app\nRUN npm ci\n',
          'worker/Dockerfile': 'FROM node:22\nRUN npm ci\n',
          'packages/in-app-sandbox/Dockerfile': 'FROM node:22\n',
          'sandbox/Dockerfile': 'FROM node:22\n',
          'scripts/scan-client-bundle.mjs': '',
        }),
      ),
      { name: 'shop' },
    );
    const artifacts = Object.fromEntries(plan.artifacts.map((a) => [a.name, a.value]));
    expect(artifacts['shop-web']).toEqual({
      role: 'web',
      image: 'shop',
      context: '.',
      dockerfile: 'web/Dockerfile',
    });
    expect(artifacts['shop-worker']).toEqual({
      role: 'worker',
      image: 'shop-worker',
      context: '.',
      dockerfile: 'worker/Dockerfile',
    });
    expect(artifacts['cli']).toBe(false); // scan-client-bundle is no CLI build
    expect(plan.registry).toBe('docker.shop.example/shop');
    expect(plan.found).toContain(
      'skipped packages/in-app-sandbox/Dockerfile: not an artifact (not built by the production compose file); declare it if you release it',
    );
  });
});

describe('a production compose file that pulls one image for several roles, built by the Dockerfile at the top', () => {
  it('makes the Dockerfile that image, its services roles of it by command, the database and cache left out', () => {
    const plan = planConfig(
      detectProject(
        files({
          'docker-compose.yml': `services:
  inventory: &inventory
    image: docker.io/acmeinv/inventory:\${VERSION-v4.1}
    env_file: env/inventory.env
  inventory-worker:
    <<: *inventory
    command:
      - /opt/inventory/venv/bin/python
      - /opt/inventory/manage.py
      - rqworker
  inventory-housekeeping:
    <<: *inventory
    command: [/opt/inventory/housekeeping.sh]
  postgres:
    image: docker.io/postgres:16-alpine
  redis:
    image: docker.io/valkey/valkey:8.0-alpine
`,
          'docker-compose.test.yml':
            'services:\n  inventory:\n    image: ${IMAGE-docker.io/acmeinv/inventory:latest}\n',
          Dockerfile:
            'ARG FROM\nFROM ${FROM} AS builder\nFROM ${FROM} AS main\nCOPY docker/ /opt/inventory/\n',
        }),
      ),
      { name: 'inventory' },
    );
    const artifacts = Object.fromEntries(plan.artifacts.map((a) => [a.name, a.value]));
    expect(artifacts['inventory']).toEqual({ role: 'api', image: 'inventory', context: '.' });
    expect(artifacts['inventory-worker']).toEqual({
      role: 'worker',
      image: 'inventory',
      command: ['/opt/inventory/venv/bin/python', '/opt/inventory/manage.py', 'rqworker'],
    });
    expect(artifacts['inventory-housekeeping']).toEqual({
      image: 'inventory',
      command: ['/opt/inventory/housekeeping.sh'],
    });
    expect(plan.registry).toBe('docker.io/acmeinv');
    expect(plan.todo).toContain(
      'artifacts.inventory.buildArgs.FROM: the image its Dockerfile starts FROM (ARG FROM has no default; or use BASE_IMAGE, which release build sets from base)',
    );
    expect(() => validateConfig({ registry: plan.registry, artifacts }, 'plan')).not.toThrow();
  });
});

describe('paths, context and hostile files', () => {
  it('refuses a build context that leaves the repository by name, never rewriting it', () => {
    const plan = planConfig(
      detectProject(
        files({ 'compose.yaml': 'services:\n  x:\n    build:\n      context: ../../../../etc\n' }),
      ),
      { name: 'x' },
    );
    expect(plan.todo[0]).toBe(
      'compose.yaml service x: build.context "../../../../etc" leaves the repository; not released (refused, never rewritten)',
    );
    expect(JSON.stringify(plan.artifacts)).not.toContain('etc');
  });

  it('builds a Dockerfile whose COPY sources are found from the top with context "."', () => {
    const plan = planConfig(
      detectProject(
        files({
          'api/Dockerfile': SERVICE['api/Dockerfile'],
          'api/src/app.py': '',
          'api/pyproject.toml': '',
        }),
      ),
      {
        name: 'acme',
        exists: files({ 'api/Dockerfile': '', 'api/src/app.py': '', 'api/pyproject.toml': '' }).exists!,
      },
    );
    expect(plan.artifacts[0]).toMatchObject({
      name: 'api',
      value: { context: '.', dockerfile: 'api/Dockerfile' },
    });
    expect(plan.guessed).toContain(
      'artifacts.api.context ".": 2 of its 2 COPY sources are found from the top of the repository, 0 from api/',
    );
  });

  it('refuses an alias bomb and says why', () => {
    const lol = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++)
      lol.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    const read = readComposeFile(`${lol.join('\n')}\nservices: {}\n`);
    expect(read).toHaveProperty('unreadable');
  });

  it('reads each hostile file with a 1 MB line within a deadline (linear readers; the target is bench:init)', () => {
    const mb = 1024 * 1024;
    // Each a shape a backtracking pattern took quadratic time on (a 500 KB line took minutes).
    const dockerfiles = [
      `FROM node:20 AS ${' '.repeat(mb)}x\n`,
      `ARG ${'A_VERSION '.repeat(mb / 10)}\n`,
      `ENV A="${'x'.repeat(mb)}\n`,
      `FROM node:20\nCOPY ${'a/'.repeat(mb / 2)} /x\n`,
      `FROM python AS ${'\t'.repeat(mb)}\nCOPY ${'/'.repeat(mb)} /x\n`,
    ];
    const composes = [
      `services:\n  a:\n    image: "\${${'a:-${'.repeat(mb / 5)}"\n    build:\n      context: "${'../'.repeat(mb / 3)}"\n`,
      `services:\n  a:\n    image: ghcr.io/${'${a:-'.repeat(mb / 5)}\n    build: .\n`,
    ];
    const projects: Record<string, string>[] = [
      { 'pyproject.toml': `[project${' '.repeat(mb)}\nname = "${'x'.repeat(mb)}` },
      { 'scripts/build-cli.sh': `tar czf ${'dist/'.repeat(mb / 5)}\n` },
      { Dockerfile: dockerfiles[4]!, 'compose.yaml': composes[1]! },
    ];
    // The best of three runs: the time of the work, not of a busy neighbour on a shared machine.
    const timed = (work: () => unknown) => {
      let best = Number.POSITIVE_INFINITY;
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        work();
        best = Math.min(best, (performance.now() - started) / 1000);
      }
      return best;
    };
    const seconds = [
      ...dockerfiles.map((text) => timed(() => readDockerfile(text))),
      ...composes.map((text) => timed(() => readComposeFile(text))),
      ...projects.map((project) => timed(() => planConfig(detectProject(files(project)), { name: 'x' }))),
    ];
    // A deadline, not a speed target: each takes tens of milliseconds here, the quadratic patterns
    // took minutes. The target (under 1 s at 1 MB, linear in size) is `npm run bench:init`'s.
    for (const s of seconds) expect(s).toBeLessThan(15);
    expect(readDockerfile(dockerfiles[1]!).args).toEqual([{ name: 'A_VERSION' }]);
  });
});

// One-shot jobs as real services write them: a migration the API waits for to complete (a
// `migrator` with `restart: "no"` and a script for a command, as Plane's; a `db-migration` running
// `npm run migration:latest`, as Infisical's), one that nothing waits for but whose command says
// it migrates (`sh -c "pnpm exec prisma migrate deploy"`), a script under `entrypoint: [sh, -c]`
// that another job waits for (Formbricks'), and a worker that must stay a worker.
describe('release init on a service with one-shot jobs', () => {
  const compose = `services:
  api:
    image: ghcr.io/acme/acme-app:\${TAG:-latest}
    build: .
    depends_on:
      migrator:
        condition: service_completed_successfully
      db-migration:
        condition: service_completed_successfully
      db:
        condition: service_healthy
  migrator:
    image: ghcr.io/acme/acme-app:\${TAG:-latest}
    command: ./bin/docker-entrypoint-migrator.sh
    restart: "no"
  db-migration:
    image: ghcr.io/acme/acme-app:\${TAG:-latest}
    command: npm run migration:latest
  prisma:
    image: ghcr.io/acme/acme-app:\${TAG:-latest}
    command: sh -c "pnpm exec prisma migrate deploy"
  apply:
    image: ghcr.io/acme/acme-app:\${TAG:-latest}
    restart: "no"
    entrypoint: ["sh", "-c"]
    command: ["node validate-env.mjs && node dist/apply-schema.js"]
  notify:
    image: ghcr.io/acme/acme-app:\${TAG:-latest}
    command: node dist/notify.js
    depends_on:
      apply:
        condition: service_completed_successfully
  worker:
    image: ghcr.io/acme/acme-app:\${TAG:-latest}
    command: celery -A acme worker
    restart: unless-stopped
  db:
    image: postgres:16
`;
  const plan = planConfig(
    detectProject(files({ 'docker-compose.yml': compose, Dockerfile: 'FROM node:22\nCOPY . /app\n' })),
    { name: 'acme' },
  );
  const artifacts = Object.fromEntries(plan.artifacts.map((a) => [a.name, a.value]));

  it.each([
    ['migrator', ['./bin/docker-entrypoint-migrator.sh'], /api waits for it to complete.*restart: "no"/],
    ['db-migration', ['npm', 'run', 'migration:latest'], /api waits for it to complete/],
    ['prisma', ['pnpm', 'exec', 'prisma', 'migrate', 'deploy'], /its command/],
    // A shell entrypoint with the script as the command, awaited by a service that is no API
    // (Formbricks' chain of migrations): both words kept, so verify matches the container.
    [
      'apply',
      ['sh', '-c', 'node validate-env.mjs && node dist/apply-schema.js'],
      /notify waits for it to complete.*restart: "no"/,
    ],
  ])('%s is a job role of the app image', (name, command, why) => {
    expect(artifacts[name]).toEqual({ role: 'job', image: 'acme-app', command });
    expect(plan.guessed.find((g) => g.startsWith(`artifacts.${name}: role job`))).toMatch(why);
  });

  it('keeps the worker a worker and the API the API; the config it writes is accepted', () => {
    expect(artifacts['worker']).toEqual({ image: 'acme-app', command: ['celery', '-A', 'acme', 'worker'] });
    expect((artifacts['api'] as { role?: string }).role ?? 'api').toBe('api');
    const config = validateConfig(
      { registry: plan.registry, versionVariables: plan.versionVariables, artifacts },
      'plan',
    );
    expect(
      Object.values(config.artifacts)
        .filter((a) => a.kind === 'image' && a.role === 'job')
        .map((a) => a.name)
        .sort(),
    ).toEqual(['apply', 'db-migration', 'migrator', 'prisma']);
  });
});

describe('release init on roles run through a shell or an init process', () => {
  // A pnpm/prisma service: the migration under `sh -c "…"`, the worker under dumb-init, the
  // scheduler under tini with a multi-line `bash -c` script; the API runs the image's default.
  const compose = `services:
  app:
    image: ghcr.io/acme/shop:latest
    build: .
  migrate:
    image: ghcr.io/acme/shop:latest
    command: sh -c "pnpm exec prisma migrate deploy"
  worker:
    image: ghcr.io/acme/shop:latest
    command: ["dumb-init", "--", "node", "dist/worker.js"]
  scheduler:
    image: ghcr.io/acme/shop:latest
    entrypoint: ["/sbin/tini", "--"]
    command:
      - /bin/bash
      - -c
      - |
        exec node dist/cron.js
  seed:
    image: ghcr.io/acme/shop:latest
    command: sh -c "pnpm exec prisma migrate deploy && pnpm run seed"
`;
  const plan = planConfig(
    detectProject(
      files({ 'docker-compose.yml': compose, Dockerfile: 'FROM node:22\nCMD ["node", "dist/main.js"]\n' }),
    ),
    { name: 'shop' },
  );
  const commands = Object.fromEntries(
    plan.artifacts.map((a) => [a.name, a.value ? a.value['command'] : undefined]),
  );

  it('writes each role its command itself, without the shell or the init process around it', () => {
    expect(commands['migrate']).toEqual(['pnpm', 'exec', 'prisma', 'migrate', 'deploy']);
    expect(commands['worker']).toEqual(['node', 'dist/worker.js']);
    // The entrypoint is not read by init: the command as the compose file writes it, unwrapped.
    expect(commands['scheduler']).toEqual(['node', 'dist/cron.js']);
    // Two commands in one line: no one of them is the role, so the line as written.
    expect(commands['seed']).toEqual(['sh', '-c', 'pnpm exec prisma migrate deploy && pnpm run seed']);
  });

  it('reads the compose string as Compose splits it', () => {
    const read = readComposeFile(compose);
    if (!('services' in read)) throw new Error(read.unreadable);
    expect(read.services.find((s) => s.name === 'migrate')?.command).toEqual([
      'sh',
      '-c',
      'pnpm exec prisma migrate deploy',
    ]);
  });
});
