import { describe, expect, it } from 'vitest';
import { pinnedImage, type TargetImage } from '../deployment-types.ts';
import { forcedPass, nextSpec, planSwarmUpgrade, servicesToRestore, updateOrder } from './swarm-plan.ts';
import { type RunningService, type ServiceSpec, SWARM_DEFAULT_UPDATE_CONFIG } from './swarm-types.ts';

const REPO = '127.0.0.1:5000/acme';
const digest = (c: string) => `sha256:${c.repeat(64)}`;

function running(
  role: RunningService['role'],
  image: string,
  extra: Partial<RunningService> = {},
): RunningService {
  const spec: ServiceSpec = {
    Name: `svc_${role}`,
    Labels: { team: 'core' },
    TaskTemplate: {
      ContainerSpec: { Image: image, Env: ['PORT=8080'] },
      RestartPolicy: { Condition: 'any' },
    },
    Mode: { Replicated: { Replicas: 2 } },
    UpdateConfig: { Parallelism: 1, Order: 'stop-first', FailureAction: 'rollback', Monitor: 5_000_000_000 },
  };
  return {
    role,
    name: `svc_${role}`,
    id: `id-${role}`,
    versionIndex: 10,
    spec,
    image,
    digest: image.split('@')[1],
    version: 'v1.0.0',
    versionSource: 'test',
    networks: [],
    ...extra,
  };
}

const target = (role: TargetImage['role'], c: string): TargetImage => ({
  role,
  artifact: role,
  repository: `${REPO}/service-${role}`,
  tag: 'v2.0.0',
  digest: digest(c),
});

describe('planSwarmUpgrade', () => {
  it('runs a job of the API image in a phase of its own, first; its spec gets the image alone', () => {
    const migrate = running('api', `${REPO}/service-api:v1.0.0@${digest('a')}`, {
      name: 'svc_migrate',
      id: 'id-migrate',
      oneShot: true,
    });
    migrate.spec.Mode = { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } } as never;
    delete migrate.spec.UpdateConfig;
    const plan = planSwarmUpgrade(
      'v2.0.0',
      [
        running('api', `${REPO}/service-api:v1.0.0@${digest('a')}`),
        migrate,
        running('worker', `${REPO}/service-worker:v1.0.0@${digest('b')}`),
      ],
      [target('api', 'd'), target('worker', 'e')],
    );
    expect(plan.phases.map((phase) => phase.map((s) => s.name))).toEqual([
      ['svc_migrate'],
      ['svc_api', 'svc_worker'],
    ]);
    const job = plan.phases[0]![0]!;
    expect(job).toMatchObject({ oneShot: true, changes: true, role: 'api' });
    const spec = nextSpec(migrate.spec, job);
    expect(spec.TaskTemplate?.ContainerSpec?.Image).toBe(pinnedImage(target('api', 'd')));
    // Swarm refuses an update config on a job service.
    expect(spec).not.toHaveProperty('UpdateConfig');
  });

  it('moves every service of the worker image (a worker and a scheduler) in the API and worker phase', () => {
    const scheduler = running('worker', `${REPO}/service-worker:v1.0.0@${digest('b')}`, {
      name: 'svc_scheduler',
      id: 'id-scheduler',
    });
    const plan = planSwarmUpgrade(
      'v2.0.0',
      [
        running('worker', `${REPO}/service-worker:v1.0.0@${digest('b')}`),
        scheduler,
        running('api', `${REPO}/service-api:v1.0.0@${digest('a')}`),
      ],
      [target('api', 'd'), target('worker', 'e')],
    );
    expect(plan.phases.map((phase) => phase.map((p) => p.name))).toEqual([
      ['svc_api', 'svc_worker', 'svc_scheduler'],
    ]);
    expect(plan.services.find((p) => p.name === 'svc_scheduler')?.to.digest).toBe(digest('e'));
  });

  it('puts API and worker in one phase, web after them, each pinned to its digest', () => {
    const plan = planSwarmUpgrade(
      'v2.0.0',
      [
        running('web', `${REPO}/service-web:v1.0.0@${digest('c')}`),
        running('worker', `${REPO}/service-worker:v1.0.0@${digest('b')}`),
        running('api', `${REPO}/service-api:v1.0.0@${digest('a')}`),
      ],
      [target('api', 'd'), target('worker', 'e'), target('web', 'f')],
    );
    expect(plan.phases.map((p) => p.map((s) => s.role))).toEqual([['api', 'worker'], ['web']]);
    expect(plan.services[0]!.to.image).toBe(`${REPO}/service-api:v2.0.0@${digest('d')}`);
    expect(plan.services[0]!.from).toMatchObject({ digest: digest('a'), version: 'v1.0.0' });
    expect(plan.upToDate).toBe(false);
  });

  it('marks a service already on the exact target as unchanged; all unchanged is up to date', () => {
    const api = target('api', 'd');
    const worker = target('worker', 'e');
    const plan = planSwarmUpgrade(
      'v2.0.0',
      [running('api', pinnedImage(api)), running('worker', `${REPO}/service-worker:v1.0.0@${digest('b')}`)],
      [api, worker],
    );
    expect(plan.services.map((s) => [s.role, s.changes])).toEqual([
      ['api', false],
      ['worker', true],
    ]);
    const done = planSwarmUpgrade(
      'v2.0.0',
      [running('api', pinnedImage(api)), running('worker', pinnedImage(worker))],
      [api, worker],
    );
    expect(done.upToDate).toBe(true);
  });

  it('a tag-only spec image on the same digest still changes: it is pinned now', () => {
    const api = target('api', 'd');
    const plan = planSwarmUpgrade('v2.0.0', [running('api', `${REPO}/service-api:v2.0.0`)], [api]);
    expect(plan.services[0]!.changes).toBe(true);
  });
});

describe('updateOrder', () => {
  it('start-first unless two tasks on one node would collide', () => {
    expect(updateOrder({}, []).order).toBe('start-first');
    expect(updateOrder({}, ['backend']).order).toBe('start-first');
    expect(updateOrder({}, ['host'])).toEqual({
      order: 'stop-first',
      reason: 'host network: two tasks would bind the same port',
    });
    expect(
      updateOrder({ EndpointSpec: { Ports: [{ PublishMode: 'ingress', PublishedPort: 80 }] } }, []).order,
    ).toBe('start-first');
    expect(
      updateOrder({ EndpointSpec: { Ports: [{ PublishMode: 'host', PublishedPort: 8080 }] } }, []),
    ).toEqual({
      order: 'stop-first',
      reason: 'publishes port 8080 in host mode',
    });
  });
});

describe('nextSpec', () => {
  it('changes only the image, the order and the failure action; the input is not touched', () => {
    const current = running('api', `${REPO}/service-api:v1.0.0@${digest('a')}`);
    const before = structuredClone(current.spec);
    const [planned] = planSwarmUpgrade('v2.0.0', [current], [target('api', 'd')]).services;
    const next = nextSpec(current.spec, planned!);
    expect(current.spec).toEqual(before);
    expect(next).toEqual({
      ...before,
      TaskTemplate: {
        ...before.TaskTemplate,
        ContainerSpec: { Image: planned!.to.image, Env: ['PORT=8080'] },
      },
      UpdateConfig: { ...before.UpdateConfig, Order: 'start-first', FailureAction: 'pause' },
    });
  });

  it("keeps Swarm's defaults for a service without an update config: one task at a time, not all at once", () => {
    const current = running('worker', `${REPO}/service-worker:v1.0.0@${digest('a')}`);
    delete current.spec.UpdateConfig;
    const [planned] = planSwarmUpgrade('v2.0.0', [current], [target('worker', 'd')]).services;
    expect(nextSpec(current.spec, planned!).UpdateConfig).toEqual({
      ...SWARM_DEFAULT_UPDATE_CONFIG,
      Order: planned!.order,
      FailureAction: 'pause',
    });
  });
});

describe('forcedPass', () => {
  it("moves only Swarm's force counter on, from nothing or from a number; the input is not touched", () => {
    const spec = { Name: 'api', TaskTemplate: { ContainerSpec: { Image: 'reg/api:v2@sha256:a' } } };
    const once = forcedPass(spec);
    expect(once).toEqual({ ...spec, TaskTemplate: { ...spec.TaskTemplate, ForceUpdate: 1 } });
    expect(forcedPass(once).TaskTemplate?.ForceUpdate).toBe(2);
    expect(spec.TaskTemplate).not.toHaveProperty('ForceUpdate');
  });
});

// An app and an admin dashboard (two web clients, each its own image) and a seed job of an image
// of its own: each service moves to its own image's digest; a failure puts back every one touched.
describe('planSwarmUpgrade of several web clients and a job of its own image', () => {
  const own = (role: TargetImage['role'], artifact: string, c: string): TargetImage => ({
    role,
    artifact,
    repository: `${REPO}/${artifact}`,
    tag: 'v2.0.0',
    digest: digest(c),
  });
  const targets = [
    target('api', 'd'),
    target('worker', 'e'),
    own('web', 'app', 'f'),
    own('web', 'admin', '1'),
    own('api', 'seed', '2'),
  ];
  const services = [
    running('web', `${REPO}/app:v1.0.0@${digest('c')}`, { name: 'acme_app', id: 'app' }),
    running('web', `${REPO}/admin:v1.0.0@${digest('c')}`, { name: 'acme_admin', id: 'admin' }),
    running('api', `${REPO}/seed:v1.0.0@${digest('c')}`, { name: 'acme_seed', id: 'seed', oneShot: true }),
    running('worker', `${REPO}/service-worker:v1.0.0@${digest('b')}`),
    running('api', `${REPO}/service-api:v1.0.0@${digest('a')}`),
  ];

  it('runs the job first, API and worker next, then each web client on its own image', () => {
    const plan = planSwarmUpgrade('v2.0.0', services, targets);
    expect(plan.phases.map((phase) => phase.map((p) => [p.name, p.artifact, p.to.digest]))).toEqual([
      [['acme_seed', 'seed', digest('2')]],
      [
        ['svc_api', 'api', digest('d')],
        ['svc_worker', 'worker', digest('e')],
      ],
      [
        ['acme_app', 'app', digest('f')],
        ['acme_admin', 'admin', digest('1')],
      ],
    ]);
  });

  it('puts back every web client and all before them when the last one fails; only what was touched', () => {
    const plan = planSwarmUpgrade('v2.0.0', services, targets);
    const touched = new Set(['acme_seed', 'svc_api', 'svc_worker', 'acme_app', 'acme_admin']);
    expect(servicesToRestore(plan, touched).map((s) => s.name)).toEqual([
      'acme_seed',
      'svc_api',
      'svc_worker',
      'acme_app',
      'acme_admin',
    ]);
    // A failing job: nothing else was sent an update.
    expect(servicesToRestore(plan, new Set(['acme_seed'])).map((s) => s.name)).toEqual(['acme_seed']);
  });
});
