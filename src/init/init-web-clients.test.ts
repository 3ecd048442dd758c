import { describe, expect, it } from 'vitest';
import { validateConfig } from '../config/validate.ts';
import { detectProject, type ProjectFiles } from './detect.ts';
import { pipelineFacts, webUrlFlags } from './pipeline-facts.ts';
import { planConfig } from './plan-config.ts';

// Services with several web clients, reduced to their shapes: a pnpm monorepo whose apps/web,
// apps/admin and apps/space are each a Vite app with its own Dockerfile (nginx serving the build),
// beside a Node API and its worker; and one Dockerfile whose targets are the backend, the app, the
// admin dashboard and an all-in-one image (its ARGs belong to every target).

function files(contents: Record<string, string>): ProjectFiles {
  const known = new Set(Object.keys(contents));
  for (const path of Object.keys(contents))
    for (let i = path.indexOf('/'); i > 0; i = path.indexOf('/', i + 1)) known.add(path.slice(0, i));
  return { paths: Object.keys(contents), read: (path) => contents[path], exists: (path) => known.has(path) };
}

const viteApp = (name: string) =>
  JSON.stringify({
    name,
    private: true,
    scripts: { build: 'vite build' },
    devDependencies: { vite: '^7.0.0' },
  });
const viteDockerfile = (app: string) =>
  [
    'FROM node:22-alpine AS base',
    'RUN corepack enable pnpm',
    'FROM base AS builder',
    'COPY . .',
    'ARG VITE_API_BASE_URL=""',
    'ENV VITE_API_BASE_URL=$VITE_API_BASE_URL',
    `RUN pnpm turbo run build --filter=${app}`,
    'FROM nginx:1.29-alpine AS production',
    `COPY --from=builder /app/apps/${app}/dist /usr/share/nginx/html`,
    'CMD ["nginx", "-g", "daemon off;"]',
    '',
  ].join('\n');

const MONOREPO = {
  'package.json': JSON.stringify({ name: 'acme', private: true, packageManager: 'pnpm@10.12.1' }),
  'pnpm-workspace.yaml': 'packages:\n  - apps/*\n  - packages/*\n',
  'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
  'apps/web/package.json': viteApp('web'),
  'apps/web/Dockerfile.web': viteDockerfile('web'),
  'apps/admin/package.json': viteApp('admin'),
  'apps/admin/Dockerfile.admin': viteDockerfile('admin'),
  'apps/space/package.json': viteApp('space'),
  'apps/space/Dockerfile.space': viteDockerfile('space'),
  'apps/api/package.json': JSON.stringify({
    name: 'api',
    private: true,
    dependencies: { fastify: '^5.0.0' },
  }),
  'apps/api/Dockerfile':
    'FROM node:22-alpine\nWORKDIR /app\nCOPY . .\nRUN pnpm install\nCMD ["node", "dist/main.js"]\n',
  'docker-compose.yml': [
    'services:',
    '  web:',
    '    build: { context: ., dockerfile: ./apps/web/Dockerfile.web }',
    '  admin:',
    '    build: { context: ., dockerfile: ./apps/admin/Dockerfile.admin }',
    '  space:',
    '    build: { context: ., dockerfile: ./apps/space/Dockerfile.space }',
    '  api:',
    '    image: ghcr.io/acme/acme-api:latest',
    '    build: { context: ./apps/api }',
    '    command: node dist/main.js',
    '  worker:',
    '    image: ghcr.io/acme/acme-api:latest',
    '    command: node dist/worker.js',
    '',
  ].join('\n'),
};

const TARGETS = {
  'package.json': JSON.stringify({ name: 'acme', private: true, packageManager: 'pnpm@10.12.1' }),
  'pnpm-workspace.yaml': 'packages:\n  - packages/*\n',
  'prod.Dockerfile': [
    'FROM node:22-alpine AS node_base',
    'ARG VITE_BASE_URL',
    'FROM node_base AS backend',
    'CMD ["node", "prod_run.mjs"]',
    'FROM node_base AS app',
    'CMD ["node", "/site/prod_run.mjs"]',
    'FROM node_base AS sh_admin',
    'CMD ["node", "/site/prod_run.mjs"]',
    'FROM node_base AS aio',
    'CMD ["node", "aio_run.mjs"]',
    '',
  ].join('\n'),
  'docker-compose.yml': [
    'services:',
    ...['backend', 'app', 'sh-admin', 'aio'].flatMap((service) => [
      `  acme-${service}:`,
      '    build:',
      '      context: .',
      '      dockerfile: prod.Dockerfile',
      `      target: ${service.replace('-', '_')}`,
    ]),
    '',
  ].join('\n'),
};

function planOf(contents: Record<string, string>) {
  const plan = planConfig(detectProject(files(contents)), { name: 'acme' });
  const artifacts = Object.fromEntries(plan.artifacts.map((a) => [a.name, a.value]));
  return { plan, artifacts };
}
const roleOf = (value: unknown, name: string) =>
  (value as { role?: string } | false)
    ? ((value as { role?: string }).role ?? (['api', 'worker', 'web'].includes(name) ? name : undefined))
    : false;

describe('release init on a service with several web clients', () => {
  it('a pnpm monorepo: each Vite app with its own Dockerfile is a web client, each its own image', () => {
    const { plan, artifacts } = planOf(MONOREPO);
    expect(Object.fromEntries(Object.entries(artifacts).map(([name, v]) => [name, roleOf(v, name)]))).toEqual(
      {
        web: 'web',
        admin: 'web',
        space: 'web',
        api: 'api',
        worker: 'worker',
        cli: false,
      },
    );
    expect(artifacts['admin']).toMatchObject({
      image: 'acme-admin',
      dockerfile: 'apps/admin/Dockerfile.admin',
    });
    expect(plan.guessed).toContain('artifacts.admin: role web, from its name');
    expect(plan.guessed).toContain(
      'artifacts.space: role web, from the client build variables its Dockerfile reads (VITE_API_BASE_URL)',
    );
    expect(plan.versionVariables.client).toEqual([]);
    expect(() =>
      validateConfig({ registry: plan.registry, versionVariables: plan.versionVariables, artifacts }, 'plan'),
    ).not.toThrow();
    // The CI's verify reads the first web client at the service's URL, the others when their own
    // secret is set (unset, verify lists them as not read).
    const facts = pipelineFacts(plan, {
      dependencies: [],
      manager: { name: 'pnpm', from: 'package.json' } as never,
      node: { major: 22, from: 'default' } as never,
      tags: { prefix: 'v', from: 'default' } as never,
    });
    expect(facts.webs).toEqual(['web', 'admin', 'space']);
    expect(webUrlFlags(facts)).toBe(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${VAR:+…}, written into CI as is
      ' --web-url web="$SERVICE_URL" ${ADMIN_URL:+--web-url admin="$ADMIN_URL"} ${SPACE_URL:+--web-url space="$SPACE_URL"}',
    );
  });

  it('one Dockerfile of targets: app and admin dashboard by name; its shared ARGs make no target a web client', () => {
    const { plan, artifacts } = planOf(TARGETS);
    expect(Object.fromEntries(Object.entries(artifacts).map(([name, v]) => [name, roleOf(v, name)]))).toEqual(
      {
        'acme-backend': 'api',
        'acme-app': 'web',
        'acme-sh-admin': 'web',
        'acme-aio': undefined,
        worker: false,
        cli: false,
      },
    );
    expect(() => validateConfig({ registry: plan.registry, artifacts }, 'plan')).not.toThrow();
  });

  it('with no compose file: the Dockerfiles of apps/web and apps/admin are the two web clients', () => {
    const { 'docker-compose.yml': _, 'apps/space/Dockerfile.space': __, ...rest } = MONOREPO;
    const { artifacts } = planOf({
      ...rest,
      'apps/web/Dockerfile': rest['apps/web/Dockerfile.web'],
      'apps/admin/Dockerfile': rest['apps/admin/Dockerfile.admin'],
    });
    expect(roleOf(artifacts['web'], 'web')).toBe('web');
    expect(artifacts['admin']).toMatchObject({ role: 'web', image: 'acme-admin', context: 'apps/admin' });
    expect(roleOf(artifacts['api'], 'api')).toBe('api');
  });

  it('one web client stays the one: a bare --web-url in the CI', () => {
    const { plan } = planOf({
      ...MONOREPO,
      'docker-compose.yml': MONOREPO['docker-compose.yml'].replace(/ {2}(admin|space):\n.*\n/g, ''),
    });
    const facts = pipelineFacts(plan, {
      dependencies: [],
      manager: { name: 'pnpm', from: 'package.json' } as never,
      node: { major: 22, from: 'default' } as never,
      tags: { prefix: 'v', from: 'default' } as never,
    });
    expect(facts.webs).toBeUndefined();
    expect(webUrlFlags(facts)).toBe(' --web-url "$SERVICE_URL"');
  });
});
