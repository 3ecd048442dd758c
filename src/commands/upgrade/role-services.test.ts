import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../config/validate.ts';
import {
  findRoleServices,
  requireApiAndWorker,
  rolesOfServices,
  targetArtifacts,
  webArtifactsWithUrl,
} from './role-services.ts';

// One image in several roles, deployed as real projects deploy it: the API by the image's
// default, the worker under `sh -c`, a scheduler under tini, a second API replica service; the
// web client its own image. Upgrade finds each role's service as verify does.
const config = validateConfig(
  {
    registry: 'registry.example.com/acme',
    artifacts: {
      api: { image: 'shop', context: '.' },
      worker: { image: 'shop', command: ['node', 'dist/worker.js'] },
      scheduler: { role: 'worker', image: 'shop', command: ['node', 'dist/cron.js'] },
      web: { image: 'shop-web', context: 'web' },
    },
  },
  'x',
);
const image = 'registry.example.com/acme/shop:v1.0.0';
const services = [
  { name: 'db', image: 'postgres:16', argv: [] },
  { name: 'cron', image, argv: ['/sbin/tini', '--', 'node', 'dist/cron.js'] },
  { name: 'jobs', image: `${image}@sha256:${'a'.repeat(64)}`, argv: 'sh -c "exec node dist/worker.js"' },
  { name: 'app', image, argv: [] },
  { name: 'app-2', image, argv: [] },
  { name: 'frontend', image: 'registry.example.com/acme/shop-web:v1.0.0', argv: [] },
];

describe('findRoleServices', () => {
  it('finds each role by its image and command, through sh -c and tini', () => {
    const { names, why, found } = findRoleServices(config, services, {}, { webs: ['web'] });
    expect(names).toEqual({ api: 'app', worker: 'jobs', web: 'frontend' });
    expect(why).toEqual({
      api: 'found: runs shop',
      worker: 'found: runs shop with "node dist/worker.js"',
      web: 'found: runs shop-web',
    });
    expect(found).toContain('api: service app (of app, app-2), found: it runs shop');
    expect(found).toContain('worker: service jobs, found: it runs shop with "node dist/worker.js"');
  });

  it('prefers the service named after the artifact, and a name given wins', () => {
    const named = [...services, { name: 'api', image, argv: ['node', 'dist/main.js'] }];
    expect(findRoleServices(config, named, {}, { webs: ['web'] }).names.api).toBe('api');
    const { names, found } = findRoleServices(
      config,
      services,
      { worker: 'cron', web: 'other' },
      { webs: ['web'] },
    );
    expect(names).toEqual({ api: 'app', worker: 'cron', web: 'other' });
    expect(found.some((l) => l.startsWith('worker'))).toBe(false);
  });

  it('leaves a role nothing runs unfound, and the upgrade refuses without API or worker', () => {
    const apiOnly = services.filter((s) => s.name !== 'jobs');
    const { names } = findRoleServices(config, apiOnly, {}, { webs: ['web'] });
    expect(names.worker).toBeUndefined();
    expect(() => requireApiAndWorker(names, apiOnly, config)).toThrow(
      expect.objectContaining({
        code: 'UPGRADE_NEEDS_API_AND_WORKER',
        message: expect.stringContaining('no service runs the worker (shop)'),
        hint: expect.stringContaining('--service worker=<service>'),
      }),
    );
    expect(() => requireApiAndWorker({ api: 'app', worker: 'jobs' }, services, config)).not.toThrow();
  });

  it('finds no web service without its URL to prove it by', () => {
    expect(findRoleServices(config, services, {}, { webs: [] }).names).toEqual({
      api: 'app',
      worker: 'jobs',
    });
  });

  it('finds no web service for a config without a web client', () => {
    const noWeb = validateConfig(
      {
        artifacts: { api: { image: 'shop', context: '.' }, worker: { image: 'w', context: 'w' }, web: false },
      },
      'x',
    );
    const { names } = findRoleServices(
      noWeb,
      [{ name: 'api', image: 'shop:1', argv: [] }],
      {},
      { webs: ['web'] },
    );
    expect(names).toEqual({ api: 'api' });
  });
});

describe('rolesOfServices', () => {
  it('names the role each service of a released image runs, by its command', () => {
    expect(rolesOfServices(config, services)).toEqual({
      cron: 'worker',
      jobs: 'worker',
      app: 'api',
      'app-2': 'api',
      frontend: 'web',
    });
  });
});

// An app and an admin dashboard (two web clients, each its own image), a migration of the app's
// image and a seed job of an image of its own, deployed under names that are none of theirs.
describe('every web client and each job of its own image', () => {
  const shop = validateConfig(
    {
      registry: 'registry.example.com/acme',
      artifacts: {
        api: { image: 'shop', context: '.' },
        worker: { image: 'shop', command: ['node', 'dist/worker.js'] },
        migrate: { role: 'job', image: 'shop', command: ['node', 'dist/migrate.js'] },
        app: { role: 'web', image: 'shop-web', context: 'web' },
        admin: { role: 'web', image: 'shop-admin', context: 'admin' },
        seed: { role: 'job', image: 'shop-seed', context: 'seed' },
      },
    },
    'x',
  );
  const at = (image: string) => `registry.example.com/acme/${image}:v1.0.0`;
  const deployed = [
    { name: 'backend', image: at('shop'), argv: [] },
    { name: 'jobs', image: at('shop'), argv: ['node', 'dist/worker.js'] },
    { name: 'db-migrate', image: at('shop'), argv: 'sh -c "node dist/migrate.js"' },
    { name: 'frontend', image: at('shop-web'), argv: [] },
    { name: 'dashboard', image: `${at('shop-admin')}@sha256:${'c'.repeat(64)}`, argv: [] },
    { name: 'seed-once', image: at('shop-seed'), argv: ['/sbin/tini', '--', 'node', 'seed.js'] },
  ];

  // [case, web URLs, services named, webs moved, artifacts resolved]
  const cases: [string, string[], Record<string, string>, Record<string, string>, string[]][] = [
    [
      'both URLs: both found by image',
      ['app', 'admin'],
      {},
      { app: 'frontend', admin: 'dashboard' },
      ['api', 'worker', 'admin', 'app', 'seed'],
    ],
    [
      'the admin URL only: the app stays',
      ['admin'],
      {},
      { admin: 'dashboard' },
      ['api', 'worker', 'admin', 'seed'],
    ],
    ['no URL: no web moves', [], {}, {}, ['api', 'worker', 'seed']],
    [
      'the admin named, no URL',
      [],
      { admin: 'other-admin' },
      { admin: 'other-admin' },
      ['api', 'worker', 'admin', 'seed'],
    ],
    [
      'a name wins over the one found',
      ['app', 'admin'],
      { admin: 'dash-2' },
      { app: 'frontend', admin: 'dash-2' },
      ['api', 'worker', 'admin', 'app', 'seed'],
    ],
  ];
  it.each(cases)('%s', (_case, urls, more, webs, artifacts) => {
    const found = findRoleServices(shop, deployed, {}, { webs: urls, more });
    expect(found.webs).toEqual(webs);
    expect(found.names).toMatchObject({ api: 'backend', worker: 'jobs' });
    // The first web client (by name: admin before app) is the one awaited as `web`.
    expect(found.names.web).toBe(webs['admin']);
    expect(targetArtifacts(shop, found, deployed).map((t) => t.artifact)).toEqual(artifacts);
  });

  it('a job of its own image moves in the API phase; one the deployment does not run has no target', () => {
    const found = findRoleServices(shop, deployed, {}, { webs: [] });
    expect(targetArtifacts(shop, found, deployed)).toContainEqual({ artifact: 'seed', role: 'api' });
    const noSeed = deployed.filter((s) => s.name !== 'seed-once');
    expect(targetArtifacts(shop, found, noSeed).map((t) => t.artifact)).toEqual(['api', 'worker']);
    // The migration of the app's image moves with the app's image: no target of its own.
    expect(targetArtifacts(shop, found, deployed).map((t) => t.artifact)).not.toContain('migrate');
  });

  it('says which web clients the URLs name: each of webUrls, or the first for one bare URL', () => {
    expect(webArtifactsWithUrl(shop, { webUrls: { app: 'http://a', admin: 'http://b' } })).toEqual([
      'app',
      'admin',
    ]);
    expect(webArtifactsWithUrl(shop, { webUrl: 'http://a' })).toEqual(['admin']);
    expect(webArtifactsWithUrl(config, { webUrl: 'http://a' })).toEqual(['web']);
    expect(webArtifactsWithUrl(shop, {})).toEqual([]);
  });
});
