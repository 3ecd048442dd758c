import { describe, expect, it } from 'vitest';
import type { TargetImage } from '../deployment-types.ts';
import { composeServices, oneShotServices } from './compose-model.ts';
import { planComposeUpgrade } from './compose-plan.ts';
import type { ComposeContainer } from './compose-types.ts';

const REG = '127.0.0.1:5000/acme';
const API2 = 'sha256:' + 'a'.repeat(64);
const WORKER2 = 'sha256:' + 'b'.repeat(64);
const targets: TargetImage[] = [
  { role: 'api', artifact: 'api', repository: `${REG}/service-api`, tag: 'v2.0.0', digest: API2 },
  { role: 'worker', artifact: 'worker', repository: `${REG}/service-worker`, tag: 'v2.0.0', digest: WORKER2 },
];

// The origin system's own shape: API, worker, scheduler and a migration job from shared images,
// fixed container names, a one-shot the others wait for, and an unrelated database.
const model = {
  services: {
    db: { image: 'postgres:16' },
    init: { image: `${REG}/service-api:v1.0.0`, command: ['migrate'] },
    api: {
      image: `${REG}/service-api:v1.0.0`,
      container_name: 'svc-api',
      depends_on: {
        init: { condition: 'service_completed_successfully' },
        db: { condition: 'service_healthy' },
      },
      healthcheck: { test: ['CMD', 'true'] },
    },
    worker: {
      image: `${REG}/service-worker:v1.0.0`,
      deploy: { replicas: 3 },
      depends_on: ['api'],
    },
    scheduler: { image: `${REG}/service-worker:v1.0.0`, command: ['schedule'] },
  },
};

function container(service: string, digest: string, version = 'v1.0.0'): ComposeContainer {
  return {
    id: `${service}-${digest.slice(7, 10)}`,
    name: service,
    service,
    image: '',
    digest,
    state: 'running',
    exitCode: 0,
    restartCount: 0,
    version,
    oneOff: false,
  };
}

const plan = (containers: ComposeContainer[] = [], m: unknown = model) =>
  planComposeUpgrade({
    tag: 'v2.0.0',
    roles: { api: 'api', worker: 'worker' },
    services: composeServices(m),
    targets,
    containers,
  });

describe('planComposeUpgrade', () => {
  it('runs a service the config declares a job first, though nothing waits for it', () => {
    const m = {
      services: {
        migrate: {
          image: `${REG}/service-api:v1.0.0`,
          command: 'pnpm exec prisma migrate deploy',
          restart: 'no',
        },
        api: { image: `${REG}/service-api:v1.0.0` },
        worker: { image: `${REG}/service-worker:v1.0.0` },
      },
    };
    const services = composeServices(m);
    expect(services.find((s) => s.name === 'migrate')).toMatchObject({
      command: 'pnpm exec prisma migrate deploy',
    });
    const withJob = planComposeUpgrade({
      tag: 'v2.0.0',
      roles: { api: 'api', worker: 'worker' },
      services,
      targets,
      containers: [],
      jobs: new Set(['migrate']),
    });
    expect(withJob.oneShots.map((s) => [s.service, s.role, s.why])).toEqual([
      ['migrate', 'api', 'a job of the release: runs to completion before the others'],
    ]);
    expect(withJob.phases.map((phase) => phase.map((s) => s.service))).toEqual([['api', 'worker']]);
    expect(withJob.services[0]!.service).toBe('migrate');
    // Without the config saying so, it is one more service of the API's image.
    const without = planComposeUpgrade({
      tag: 'v2.0.0',
      roles: { api: 'api' },
      services,
      targets,
      containers: [],
    });
    expect(without.oneShots).toEqual([]);
  });

  it('moves every service of an upgraded image; the one-shot first; leaves the database', () => {
    const p = plan();
    expect(p.oneShots.map((s) => [s.service, s.role, s.oneShot])).toEqual([['init', 'api', true]]);
    expect(p.phases.map((phase) => phase.map((s) => s.service))).toEqual([['api', 'worker', 'scheduler']]);
    expect(p.phases[0]!.find((s) => s.service === 'scheduler')!.why).toBe('runs the worker image');
    expect(Object.keys(p.pins).sort()).toEqual(['api', 'init', 'scheduler', 'worker']);
    expect(p.pins['scheduler']).toBe(`${REG}/service-worker:v2.0.0@${WORKER2}`);
    expect(p.services.find((s) => s.service === 'worker')!.replicas).toBe(3);
    expect(p.upToDate).toBe(false);
  });

  it('says stop-first for a fixed container_name', () => {
    const api = plan().phases[0]![0]!;
    expect(api.orderReason).toContain('container_name "svc-api" is fixed');
    expect(api.healthcheck).toBe(true);
  });

  it('is up to date when the model pins the target and every container runs it', () => {
    const pinned = structuredClone(model) as { services: Record<string, { image: string }> };
    for (const s of ['init', 'api']) pinned.services[s]!.image = `${REG}/service-api:v2.0.0@${API2}`;
    for (const s of ['worker', 'scheduler'])
      pinned.services[s]!.image = `${REG}/service-worker:v2.0.0@${WORKER2}`;
    const running = [container('api', API2), container('worker', WORKER2), container('scheduler', WORKER2)];
    expect(plan(running, pinned).upToDate).toBe(true);
    // One replica left on the old digest: not done.
    expect(plan([...running, container('worker', 'sha256:' + 'c'.repeat(64))], pinned).upToDate).toBe(false);
  });

  it('records what each service runs now', () => {
    const old = 'sha256:' + 'd'.repeat(64);
    const worker = plan([container('worker', old), container('worker', old)]).phases[0]![1]!;
    expect(worker.from).toEqual({
      image: `${REG}/service-worker:v1.0.0`,
      digests: [old],
      versions: ['v1.0.0'],
    });
  });

  it('refuses a --service the files do not define', () => {
    expect(() =>
      planComposeUpgrade({
        tag: 'v2.0.0',
        roles: { api: 'backend', worker: 'worker' },
        services: composeServices(model),
        targets,
        containers: [],
      }),
    ).toThrow(/no service "backend"/);
  });
});

describe('oneShotServices', () => {
  it('names the services another waits for to complete, once each', () => {
    const services = composeServices({
      services: {
        migrate: { image: 'w' },
        seed: { image: 'w', depends_on: { migrate: { condition: 'service_completed_successfully' } } },
        api: {
          image: 'a',
          depends_on: {
            migrate: { condition: 'service_completed_successfully' },
            seed: { condition: 'service_completed_successfully' },
            db: { condition: 'service_healthy' },
          },
        },
        worker: { image: 'w', depends_on: ['api'] },
        db: { image: 'postgres' },
      },
    });
    expect(oneShotServices(services)).toEqual(['migrate', 'seed']);
  });
});

describe('planComposeUpgrade of one image in several roles', () => {
  const APP = 'sha256:' + 'c'.repeat(64);
  const app = `${REG}/app`;
  const oneImage: TargetImage[] = [
    { role: 'api', artifact: 'api', repository: app, tag: 'v2.0.0', digest: APP },
    { role: 'worker', artifact: 'worker', repository: app, tag: 'v2.0.0', digest: APP },
  ];
  const services = composeServices({
    services: {
      web: { image: `${app}:v1` },
      jobs: { image: `${app}:v1`, command: ['worker'] },
      cron: { image: `${app}:v1`, command: ['scheduler'] },
    },
  });
  it('gives each service the role its command runs, and says which were found', () => {
    const p = planComposeUpgrade({
      tag: 'v2.0.0',
      roles: { api: 'web', worker: 'jobs' },
      found: { api: 'found: runs app', worker: 'found: runs app with "worker"' },
      serviceRoles: { web: 'api', jobs: 'worker', cron: 'worker' },
      services,
      targets: oneImage,
      containers: [],
    });
    expect(p.phases.flat().map((m) => [m.service, m.role, m.why])).toEqual([
      ['web', 'api', 'found: runs app'],
      ['jobs', 'worker', 'found: runs app with "worker"'],
      ['cron', 'worker', 'runs the worker image'],
    ]);
  });
  it('without the roles of its services, a service of the image takes its first role', () => {
    const p = planComposeUpgrade({
      tag: 'v2.0.0',
      roles: { api: 'web', worker: 'jobs' },
      services,
      targets: oneImage,
      containers: [],
    });
    expect(p.phases.flat().find((m) => m.service === 'cron')?.role).toBe('api');
  });
});

// An app and an admin dashboard (each its own image) and a seed job of an image of its own: each
// service moves to its own image's target, web clients after API and worker, the job first.
describe('planComposeUpgrade of several web clients and a job of its own image', () => {
  const t = (role: TargetImage['role'], artifact: string, c: string): TargetImage => ({
    role,
    artifact,
    repository: `${REG}/${artifact === 'api' || artifact === 'worker' ? `service-${artifact}` : artifact}`,
    tag: 'v2.0.0',
    digest: `sha256:${c.repeat(64)}`,
  });
  const all = [
    t('api', 'api', 'a'),
    t('worker', 'worker', 'b'),
    t('web', 'app', 'c'),
    t('web', 'admin', 'd'),
    t('api', 'seed', 'e'),
  ];
  const services = composeServices({
    services: {
      api: { image: `${REG}/service-api:v1.0.0` },
      worker: { image: `${REG}/service-worker:v1.0.0` },
      frontend: { image: `${REG}/app:v1.0.0` },
      dashboard: { image: `${REG}/admin:v1.0.0`, container_name: 'acme-admin' },
      'dashboard-2': { image: `${REG}/admin:v1.0.0` },
      seed: { image: `${REG}/seed:v1.0.0`, command: ['seed'] },
      db: { image: 'postgres:16' },
    },
  });
  const input = {
    tag: 'v2.0.0',
    roles: { api: 'api', worker: 'worker', web: 'dashboard' },
    services,
    containers: [],
    jobs: new Set(['seed']),
  };

  // [case, targets, one-shots, phases]
  const cases: [string, TargetImage[], string[], string[][]][] = [
    [
      'every target',
      all,
      ['seed'],
      [
        ['api', 'worker'],
        ['dashboard', 'frontend', 'dashboard-2'],
      ],
    ],
    [
      'the admin only of the web clients',
      all.filter((x) => x.artifact !== 'app'),
      ['seed'],
      [
        ['api', 'worker'],
        ['dashboard', 'dashboard-2'],
      ],
    ],
    ['no web client', all.filter((x) => x.role !== 'web'), ['seed'], [['api', 'worker']]],
    [
      'no target of the seed image: it stays',
      all.filter((x) => x.artifact !== 'seed'),
      [],
      [
        ['api', 'worker'],
        ['dashboard', 'frontend', 'dashboard-2'],
      ],
    ],
  ];
  it.each(cases)('%s', (_case, targets, oneShots, phases) => {
    const roles = targets.some((x) => x.artifact === 'admin')
      ? input.roles
      : { api: 'api', worker: 'worker' };
    const p = planComposeUpgrade({ ...input, roles, targets });
    expect(p.oneShots.map((m) => m.service)).toEqual(oneShots);
    expect(p.phases.map((phase) => phase.map((m) => m.service))).toEqual(phases);
    // Each service pinned to its own image's digest, never another web client's.
    for (const m of p.services) {
      const own = targets.find((x) =>
        services.find((s) => s.name === m.service)!.image!.startsWith(`${x.repository}:`),
      )!;
      expect(m.to?.digest, m.service).toBe(own.digest);
      expect(m.artifact, m.service).toBe(own.artifact);
    }
    expect(p.pins['db']).toBeUndefined();
  });

  it('says why each web client moves: named or found, else by its image', () => {
    const p = planComposeUpgrade({ ...input, targets: all, found: { web: 'found: runs admin' } });
    expect(p.phases[1]!.map((m) => [m.service, m.role, m.why])).toEqual([
      ['dashboard', 'web', 'found: runs admin'],
      ['frontend', 'web', 'runs the app image'],
      ['dashboard-2', 'web', 'runs the admin image'],
    ]);
    expect(p.oneShots[0]).toMatchObject({
      service: 'seed',
      role: 'api',
      why: 'a job of the release: runs to completion before the others',
    });
  });
});
