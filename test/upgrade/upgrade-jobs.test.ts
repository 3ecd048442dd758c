import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import {
  type OneImageRig,
  runningComposeImages,
  startOneImageRig,
  stopOneImageRig,
  upComposeProject,
  waitForApiVersion,
} from './one-image-rig.ts';
import { waitFor } from './swarm.ts';

const run = promisify(execFile);

// A one-shot job role (a migration: `command: [migrate]`, as `prisma migrate deploy` runs before
// the API) of fixtures/one-image's app image, declared `role: 'job'` in the config. One dockerd
// and one registry for the file: first a Compose project (the job as a service that runs once,
// `restart: "no"`), then, once it is down, the same roles as Swarm services (the job as a
// replicated-job service). v1.2.0's migration exits 2: the upgrade must stop there, with API and
// worker never moved and the job's last run put back on the release before. verify reads the
// job by its last run: completed, failed, on another release, or none. Beside it a second job,
// `seed`, of an image of its own (`acme-seed`, not a role of the app's): upgrade resolves its own
// image and runs it first with the migration; v1.2.0's seed exits 2 as well, and a failing run of
// either rolls both back.

let rig: OneImageRig;
let root: string;
let file: string;
let apiUrl: string;

interface Report {
  artifacts: { name: string; role?: string; version?: string; status: string; source: string }[];
  findings: { code: string; severity: string; message: string; fix: string }[];
}

/** What `release upgrade --json` says of a failed upgrade. */
interface Outcome {
  status: string;
  failure: { service?: string; reason: string } | null;
  rolledBack: { name: string; status: string }[];
}

const composeEnv = () => ({
  PATH: process.env['PATH'] ?? '',
  HOME: process.env['HOME'] ?? '/tmp',
  DOCKER_HOST: rig.engine.host,
});

function composeFile(apiPort: number): string {
  return `version: "3.8"
x-app: &app
  network_mode: host
  stop_grace_period: 2s
  image: \${APP_IMAGE:-${rig.namespace}/acme-app:v1.0.0}
services:
  migrate:
    <<: *app
    command: ["migrate"]
    restart: "no"
  seed:
    network_mode: host
    stop_grace_period: 2s
    image: ${rig.namespace}/acme-seed:v1.0.0
    restart: "no"
  api:
    <<: *app
    environment:
      PORT: "${apiPort}"
      HOST: 127.0.0.1
  worker:
    <<: *app
    command: ["worker"]
`;
}

/** `docker-compose up -d --no-deps migrate` with the app image at `tag`: a run of the job by hand. */
async function runJobByHand(tag: string): Promise<void> {
  await run('docker-compose', ['-f', file, 'up', '-d', '--no-deps', 'migrate'], {
    cwd: dirname(file),
    env: { ...composeEnv(), APP_IMAGE: `${rig.namespace}/acme-app:${tag}` },
    timeout: 120_000,
  });
  await waitFor(async () => {
    const [c] = await rig.engine.docker.listContainers({
      all: true,
      filters: { label: ['com.docker.compose.project=acme', 'com.docker.compose.service=migrate'] },
    });
    return c?.State === 'exited' || undefined;
  }, 60_000);
}

async function verifyCompose(): Promise<{ code: number; report: Report; out: string }> {
  const verify = await runRelease(
    ['verify', '--url', apiUrl, '--compose', file, '--docker-host', rig.engine.host, '--json'],
    { cwd: rig.repo.dir },
  );
  return { code: verify.code, report: jsonOf<Report>(verify), out: verify.stdout + verify.stderr };
}

const jobRow = (report: Report, role = 'migrate') =>
  report.artifacts.find((a) => a.name === 'job' && a.role === role);

beforeAll(async () => {
  rig = await startOneImageRig(
    'migrate',
    (config) => {
      config.artifacts['migrate'] = { role: 'job', image: 'acme-app', command: ['migrate'] };
      // A job of an image of its own: the app's files and entrypoint, run as `migrate`.
      const api = config.artifacts['api'] as Record<string, unknown>;
      config.artifacts['seed'] = { ...api, role: 'job', image: 'acme-seed', cmd: ['migrate'] };
      delete config.artifacts['scheduler'];
    },
    { build: ['api', 'seed'], crashIn: ['api', 'seed'] },
  );
  ({ root, file, apiUrl } = await upComposeProject(rig, 'sr-jobs-', composeFile));
}, 600_000);

afterAll(() => stopOneImageRig(rig, root), 120_000);

describe('a job role under Compose', () => {
  it('verify: a completed run on the release is in step, and no worker reads it as unreachable', async () => {
    await runJobByHand('v1.0.0');
    const { code, report, out } = await verifyCompose();
    expect(code, out).toBe(0);
    expect(jobRow(report)).toMatchObject({ role: 'migrate', version: 'v1.0.0', status: 'ok' });
    expect(jobRow(report, 'seed')).toMatchObject({ version: 'v1.0.0', status: 'ok' });
    expect(report.findings.map((f) => f.code)).not.toContain('WORKER_UNREACHABLE');
  }, 120_000);

  it('upgrade runs both jobs first (the seed on its own image), then API and worker; a failing job moves nothing else', async () => {
    const target = [
      ...['--compose', file, '--url', apiUrl, '--docker-host', rig.engine.host],
      ...['--service', 'api=api', '--service', 'worker=worker', '--monitor', '1000', '--json'],
    ];
    const up = await runRelease(['upgrade', '--to', 'v1.1.0', ...target], {
      cwd: rig.repo.dir,
      timeoutMs: 300_000,
    });
    expect(up.code, up.stdout + up.stderr).toBe(0);
    const plan = jsonOf<{ plan: { oneShots: { service: string }[] } }>(up).plan;
    expect(plan.oneShots.map((s) => s.service).sort()).toEqual(['migrate', 'seed']);
    const after = await verifyCompose();
    expect(after.code, after.out).toBe(0);
    expect(jobRow(after.report)).toMatchObject({ version: 'v1.1.0', status: 'ok' });
    expect(jobRow(after.report, 'seed')).toMatchObject({ version: 'v1.1.0', status: 'ok' });
    // The seed's run was of its own image's release digest.
    const [seed] = await rig.engine.docker.listContainers({
      all: true,
      filters: { label: ['com.docker.compose.project=acme', 'com.docker.compose.service=seed'] },
    });
    expect(seed?.Image).toContain(rig.images['seed']!['v1.1.0']!);

    const failing = await runRelease(['upgrade', '--to', 'v1.2.0', ...target], {
      cwd: rig.repo.dir,
      timeoutMs: 300_000,
    });
    expect(failing.code, failing.stdout + failing.stderr).toBe(1);
    const outcome = jsonOf<Outcome>(failing);
    expect(outcome).toMatchObject({
      status: 'rolled-back',
      failure: {
        service: expect.stringMatching(/^(migrate|seed)$/),
        reason: expect.stringMatching(/exited with code 2/),
      },
    });
    expect(outcome.rolledBack.map((r) => [r.name, r.status]).sort()).toEqual([
      ['migrate', 'restored'],
      ['seed', 'restored'],
    ]);
    const images = await runningComposeImages(rig);
    for (const service of ['api', 'worker'])
      expect(
        images[service]!.every((ref) => ref.includes(rig.digests['v1.1.0']!)),
        service,
      ).toBe(true);
    // The job was put back: its last run is v1.1.0's again, completed.
    const back = await verifyCompose();
    expect(back.code, back.out).toBe(0);
    expect(jobRow(back.report)).toMatchObject({ version: 'v1.1.0', status: 'ok' });
    expect(jobRow(back.report, 'seed')).toMatchObject({ version: 'v1.1.0', status: 'ok' });
  }, 700_000);

  it('verify: a failed run, a run of another release and no run are drift with the fix (exit 1)', async () => {
    await runJobByHand('v1.2.0');
    const failed = await verifyCompose();
    expect(failed.code, failed.out).toBe(1);
    expect(jobRow(failed.report)).toMatchObject({ role: 'migrate', status: 'drift' });
    const failure = failed.report.findings.find((f) => f.code === 'JOB_FAILED')!;
    expect(failure.message).toMatch(/exited with code 2/);
    expect(failure.fix).toMatch(/docker logs \w+/);

    await runJobByHand('v1.0.0');
    const old = await verifyCompose();
    expect(old.code, old.out).toBe(1);
    expect(old.report.findings.find((f) => f.code === 'JOB_NOT_ON_RELEASE')?.message).toMatch(
      /v1\.0\.0.*v1\.1\.0/,
    );

    await run('docker-compose', ['-f', file, 'rm', '-f', '-s', 'migrate'], {
      cwd: dirname(file),
      env: composeEnv(),
      timeout: 60_000,
    });
    const none = await verifyCompose();
    expect(none.code, none.out).toBe(1);
    expect(none.report.findings.map((f) => [f.code, f.severity])).toContainEqual(['JOB_NOT_RUN', 'drift']);
    expect(none.report.findings.find((f) => f.code === 'JOB_NOT_RUN')!.fix).toMatch(/v1\.1\.0/);
  }, 300_000);
});

describe('a job role under Swarm', () => {
  let swarmApiUrl: string;
  const SERVICES = ['acme_migrate', 'acme_seed', 'acme_api', 'acme_worker'] as const;
  const digestOf = (name: string, tag: string) =>
    name === 'acme_seed' ? rig.images['seed']![tag]! : rig.digests[tag]!;
  const imageOf = async (name: string) =>
    (
      (await rig.engine.docker.getService(name).inspect()).Spec as {
        TaskTemplate: { ContainerSpec: { Image: string } };
      }
    ).TaskTemplate.ContainerSpec.Image;

  beforeAll(async () => {
    await run('docker-compose', ['-f', file, 'down', '-t', '2'], {
      cwd: dirname(file),
      env: composeEnv(),
      timeout: 120_000,
    });
    const docker = rig.engine.docker;
    await docker.swarmInit({ ListenAddr: `127.0.0.1:${await freePort()}`, AdvertiseAddr: '127.0.0.1' });
    const host = (await docker.listNetworks({ filters: { name: ['host'] } })).find((n) => n.Name === 'host')!;
    const apiPort = await freePort();
    swarmApiUrl = `http://127.0.0.1:${apiPort}`;
    const image = `${rig.namespace}/acme-app:v1.0.0@${rig.digests['v1.0.0']}`;
    const template = (args: string[] | undefined, env: string[], own = image) => ({
      ContainerSpec: {
        Image: own,
        ...(args ? { Args: args } : {}),
        Env: env,
        StopGracePeriod: 2_000_000_000,
      },
      Networks: [{ Target: host.Id }],
    });
    // A replicated job: one run per spec written, never restarted once complete.
    await docker.createService({
      Name: 'acme_migrate',
      TaskTemplate: {
        ...template(['migrate'], []),
        RestartPolicy: { Condition: 'on-failure', MaxAttempts: 0 },
      },
      Mode: { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } },
    } as never);
    // The seed: a job of its own image, its command the image's own.
    await docker.createService({
      Name: 'acme_seed',
      TaskTemplate: {
        ...template(undefined, [], `${rig.namespace}/acme-seed:v1.0.0@${rig.images['seed']!['v1.0.0']}`),
        RestartPolicy: { Condition: 'on-failure', MaxAttempts: 0 },
      },
      Mode: { ReplicatedJob: { MaxConcurrent: 1, TotalCompletions: 1 } },
    } as never);
    for (const [name, args, env] of [
      ['acme_api', undefined, [`PORT=${apiPort}`, 'HOST=127.0.0.1']],
      ['acme_worker', ['worker'], []],
    ] as const)
      await docker.createService({
        Name: name,
        TaskTemplate: {
          ...template(args ? [...args] : undefined, [...env]),
          RestartPolicy: { Condition: 'on-failure' },
        },
        Mode: { Replicated: { Replicas: 1 } },
      });
    await waitForApiVersion(swarmApiUrl, 'v1.0.0');
  }, 300_000);

  it('verify reads the job service by its last run; upgrade runs it first, and a failing one moves nothing else', async () => {
    const target = [
      ...['--url', swarmApiUrl, '--docker-host', rig.engine.host],
      ...['--service', 'api=acme_api', '--service', 'worker=acme_worker', '--monitor', '1000', '--json'],
    ];
    let last = '';
    const before = await waitFor(async () => {
      const v = await runRelease(
        ['verify', '--url', swarmApiUrl, '--docker-host', rig.engine.host, '--json'],
        { cwd: rig.repo.dir },
      );
      last = v.stdout + v.stderr;
      // A job still running is a notice (exit 0): wait for its run to have completed.
      const rows = jsonOf<Report>(v).artifacts.filter((a) => a.name === 'job');
      return v.code === 0 && rows.length === 2 && rows.every((r) => r.status !== 'notice')
        ? jsonOf<Report>(v)
        : undefined;
    }, 60_000).catch((error: Error) => {
      throw new Error(`${error.message}: ${last}`);
    });
    expect(jobRow(before)).toMatchObject({ role: 'migrate', version: 'v1.0.0', status: 'ok' });
    expect(jobRow(before, 'seed')).toMatchObject({ version: 'v1.0.0', status: 'ok' });

    const up = await runRelease(['upgrade', '--to', 'v1.1.0', ...target], {
      cwd: rig.repo.dir,
      timeoutMs: 300_000,
    });
    expect(up.code, up.stdout + up.stderr).toBe(0);
    for (const name of SERVICES) expect(await imageOf(name), name).toContain(digestOf(name, 'v1.1.0'));

    const failing = await runRelease(['upgrade', '--to', 'v1.2.0', ...target], {
      cwd: rig.repo.dir,
      timeoutMs: 300_000,
    });
    expect(failing.code, failing.stdout + failing.stderr).toBe(1);
    const outcome = jsonOf<Outcome>(failing);
    expect(outcome).toMatchObject({
      status: 'rolled-back',
      failure: {
        service: expect.stringMatching(/^acme_(migrate|seed)$/),
        reason: expect.stringMatching(/did not complete.*failed/),
      },
    });
    expect(outcome.rolledBack.map((r) => [r.name, r.status]).sort()).toEqual([
      ['acme_migrate', 'restored'],
      ['acme_seed', 'restored'],
    ]);
    const plan = jsonOf<{ plan: { phases: { service: string }[][] } }>(failing).plan;
    expect(plan.phases.map((p) => p.map((s) => s.service).sort())).toEqual([
      ['acme_migrate', 'acme_seed'],
      ['acme_api', 'acme_worker'],
    ]);
    for (const name of SERVICES) expect(await imageOf(name), name).toContain(digestOf(name, 'v1.1.0'));
    const back = await runRelease(
      ['verify', '--url', swarmApiUrl, '--docker-host', rig.engine.host, '--json'],
      {
        cwd: rig.repo.dir,
      },
    );
    expect(back.code, back.stdout).toBe(0);
    expect(jobRow(jsonOf<Report>(back))).toMatchObject({ version: 'v1.1.0', status: 'ok' });
    expect(jobRow(jsonOf<Report>(back), 'seed')).toMatchObject({ version: 'v1.1.0', status: 'ok' });
  }, 500_000);
});
