import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import {
  addAdminWeb,
  type OneImageRig,
  startOneImageRig,
  stopOneImageRig,
  waitForApiVersion,
} from './one-image-rig.ts';
import { waitFor } from './swarm.ts';

// fixtures/one-image on a single-node Swarm: the same image as three services, api by its default
// command, worker and scheduler by their args. `release upgrade` is told of no service (then of
// api and worker only): it must find each role's service as verify does (image and command) and
// the scheduler (a service of the image), move all three in one phase, and when the release's
// worker command crashes, put all three back; `release verify --docker` reads one row per role.
// Beside them two web clients, each its own image (the app `web`, an admin dashboard `admin`):
// given their URLs, the upgrade finds both by image and moves each to its own image's digest,
// after API and worker; verify reads both in step.

let rig: OneImageRig;
let apiUrl: string;
let webUrls: string[];

/** Service -> the image references its running tasks' containers were created from. */
async function running(): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const name of SERVICES) {
    const spec = (await rig.engine.docker.getService(name).inspect()).Spec as {
      TaskTemplate: { ContainerSpec: { Image: string } };
    };
    out[name] = [spec.TaskTemplate.ContainerSpec.Image];
  }
  return out;
}

const SERVICES = ['acme_api', 'acme_worker', 'acme_scheduler', 'acme_web', 'acme_admin'] as const;
/** The digest a service's image should have at `tag`: each web client its own image's. */
const digestOf = (name: string, tag: string) =>
  name === 'acme_web'
    ? rig.images['web']![tag]!
    : name === 'acme_admin'
      ? rig.images['admin']![tag]!
      : rig.digests[tag]!;

const target = (named = true) => [
  ...['--url', apiUrl, '--docker-host', rig.engine.host],
  ...(named ? ['--service', 'api=acme_api', '--service', 'worker=acme_worker'] : []),
  ...webUrls,
  ...['--monitor', '2000', '--json'],
];

beforeAll(async () => {
  rig = await startOneImageRig('worker', addAdminWeb, { build: ['api', 'web', 'admin'] });
  const docker = rig.engine.docker;
  await docker
    .swarmInit({ ListenAddr: '127.0.0.1:0', AdvertiseAddr: '127.0.0.1' })
    .catch(async (error: Error) => {
      if (!/port|address/i.test(error.message)) throw error;
      await docker.swarmInit({ ListenAddr: `127.0.0.1:${await freePort()}`, AdvertiseAddr: '127.0.0.1' });
    });
  const host = (await docker.listNetworks({ filters: { name: ['host'] } })).find((n) => n.Name === 'host')!;
  const apiPort = await freePort();
  apiUrl = `http://127.0.0.1:${apiPort}`;
  const image = `${rig.namespace}/acme-app:v1.0.0@${rig.digests['v1.0.0']}`;
  const service = (name: string, args: string[] | undefined, env: string[], own = image) =>
    docker.createService({
      Name: name,
      TaskTemplate: {
        ContainerSpec: {
          Image: own,
          ...(args ? { Args: args } : {}),
          Env: env,
          StopGracePeriod: 2_000_000_000,
        },
        Networks: [{ Target: host.Id }],
        RestartPolicy: { Condition: 'on-failure', Delay: 500_000_000 },
      },
      Mode: { Replicated: { Replicas: 1 } },
    });
  await service('acme_api', undefined, [`PORT=${apiPort}`, 'HOST=127.0.0.1']);
  await service('acme_worker', ['worker'], []);
  await service('acme_scheduler', ['scheduler'], []);
  const [webPort, adminPort] = [await freePort(), await freePort()];
  for (const [name, web, port] of [
    ['acme_web', 'web', webPort],
    ['acme_admin', 'admin', adminPort],
  ] as const)
    await service(
      name,
      undefined,
      [`PORT=${port}`, 'HOST=127.0.0.1'],
      `${rig.namespace}/acme-${web}:v1.0.0@${rig.images[web]!['v1.0.0']}`,
    );
  webUrls = [
    ...['--web-url', `web=http://127.0.0.1:${webPort}`],
    ...['--web-url', `admin=http://127.0.0.1:${adminPort}`],
  ];
  await waitForApiVersion(apiUrl, 'v1.0.0');
  for (const port of [webPort, adminPort])
    await waitFor(
      async () =>
        (await fetch(`http://127.0.0.1:${port}/version.json`).catch(() => undefined))?.ok || undefined,
      90_000,
    );
}, 600_000);

afterAll(() => stopOneImageRig(rig), 120_000);

describe('upgrade (Swarm) of one image in three roles', () => {
  it('finds the scheduler, moves api, worker and scheduler together; verify reads one row per role', async () => {
    const upgrade = await runRelease(['upgrade', '--to', 'v1.1.0', ...target(false)], {
      cwd: rig.repo.dir,
      timeoutMs: 300_000,
    });
    expect(upgrade.code, upgrade.stdout + upgrade.stderr).toBe(0);
    const plan = jsonOf<{ plan: { phases: { service: string; role: string }[][] } }>(upgrade).plan;
    expect(plan.phases.flat().find((s) => s.service === 'acme_api')?.role).toBe('api');
    expect(plan.phases.flat().find((s) => s.service === 'acme_worker')?.role).toBe('worker');
    expect(plan.phases.map((p) => p.map((s) => s.service).sort())).toEqual([
      ['acme_api', 'acme_scheduler', 'acme_worker'],
      ['acme_admin', 'acme_web'],
    ]);
    const images = await running();
    for (const name of SERVICES) expect(images[name]![0], name).toContain(digestOf(name, 'v1.1.0'));
    const verify = await runRelease(
      ['verify', '--url', apiUrl, '--docker-host', rig.engine.host, ...webUrls, '--json'],
      { cwd: rig.repo.dir },
    );
    const report = jsonOf<{ artifacts: { name: string; role?: string; version: string; status: string }[] }>(
      verify,
    );
    expect(verify.code, verify.stdout).toBe(0);
    expect(report.artifacts.find((a) => a.role === 'scheduler')).toMatchObject({
      version: 'v1.1.0',
      status: 'ok',
    });
    expect(
      report.artifacts.filter((a) => a.name === 'web').map((a) => [a.role ?? 'web', a.version, a.status]),
    ).toEqual([
      ['web', 'v1.1.0', 'ok'],
      ['admin', 'v1.1.0', 'ok'],
    ]);
  }, 400_000);

  it("rolls all three back when the release's worker command crashes", async () => {
    const upgrade = await runRelease(['upgrade', '--to', 'v1.2.0', ...target()], {
      cwd: rig.repo.dir,
      timeoutMs: 400_000,
    });
    expect(upgrade.code, upgrade.stdout + upgrade.stderr).toBe(1);
    const images = await running();
    for (const name of SERVICES) expect(images[name]![0], name).toContain(digestOf(name, 'v1.1.0'));
  }, 500_000);
});
