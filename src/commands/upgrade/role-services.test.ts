import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../config/validate.ts';
import { findRoleServices, requireApiAndWorker, rolesOfServices } from './role-services.ts';

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
    const { names, why, found } = findRoleServices(config, services, {}, { web: true });
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
    expect(findRoleServices(config, named, {}, { web: true }).names.api).toBe('api');
    const { names, found } = findRoleServices(
      config,
      services,
      { worker: 'cron', web: 'other' },
      { web: true },
    );
    expect(names).toEqual({ api: 'app', worker: 'cron', web: 'other' });
    expect(found.some((l) => l.startsWith('worker'))).toBe(false);
  });

  it('leaves a role nothing runs unfound, and the upgrade refuses without API or worker', () => {
    const apiOnly = services.filter((s) => s.name !== 'jobs');
    const { names } = findRoleServices(config, apiOnly, {}, { web: true });
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
    expect(findRoleServices(config, services, {}, { web: false }).names).toEqual({
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
      { web: true },
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
