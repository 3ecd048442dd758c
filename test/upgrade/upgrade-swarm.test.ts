import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningKeys } from '../../src/signing/keys.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';
import {
  API_SERVICE,
  createServices,
  deriveImage,
  failMarker,
  failNextStart,
  pinned,
  rigTarget,
  type SwarmRig,
  serviceSpec,
  startSwarmRig,
  WORKER_SERVICE,
  waitFor,
} from './swarm.ts';

// `release upgrade` on a real single-node swarm (a private dockerd), with images that
// `release build` pushed to a real docker-registry. Every failing upgrade must end with API and
// worker back on v1's exact specs and `release verify` in step on v1.

interface UpgradeJson {
  status: string;
  exitCode: number;
  verdict: string;
  plan: {
    phases: { role: string; service: string; changes: boolean; order: string; to: { image: string } }[][];
  };
  failure: { kind: string; reason: string; role?: string } | null;
  rolledBack: { role: string; status: string }[];
  proof: { inStep: boolean; tag: string } | null;
  events: { ms: number; text: string }[];
}

let rig: SwarmRig;
let v1Specs: Record<string, Record<string, unknown>>;

beforeAll(async () => {
  rig = await startSwarmRig();
  // Bad releases, each made from v2: a worker whose entry point is missing (crashes on start), an
  // API whose health check probes a path it does not serve; and one whose API says (by label) that
  // it raises min_cli_version. Their partners are healthy. Made at once: only metadata changes.
  await Promise.all([
    deriveImage(rig, 'api', 'v2.0.0', 'v2.0.1', ['ENV SERVICE_VERSION=v2.0.1']),
    deriveImage(rig, 'worker', 'v2.0.0', 'v2.0.1', [
      'ENV SERVICE_VERSION=v2.0.1',
      'CMD ["/app/missing.mjs"]',
    ]),
    deriveImage(rig, 'api', 'v2.0.0', 'v2.0.2', [
      'ENV SERVICE_VERSION=v2.0.2',
      `HEALTHCHECK --interval=1s --timeout=2s --retries=2 CMD ["/usr/local/bin/node", "-e", "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]`,
    ]),
    deriveImage(rig, 'worker', 'v2.0.0', 'v2.0.2', ['ENV SERVICE_VERSION=v2.0.2']),
    deriveImage(rig, 'api', 'v2.0.0', 'v2.0.3', [
      'ENV SERVICE_VERSION=v2.0.3',
      'LABEL io.service-release.min-cli-version=9.0.0',
    ]),
    deriveImage(rig, 'worker', 'v2.0.0', 'v2.0.3', ['ENV SERVICE_VERSION=v2.0.3']),
    // A worker pushed under v2.0.4 that still carries v2.0.0: it runs, but reports the wrong version.
    deriveImage(rig, 'api', 'v2.0.0', 'v2.0.4', ['ENV SERVICE_VERSION=v2.0.4']),
    deriveImage(rig, 'worker', 'v2.0.0', 'v2.0.4', ['LABEL org.example.rebuilt=yes']),
    createServices(rig),
  ]);
  v1Specs = {
    [API_SERVICE]: await serviceSpec(rig, API_SERVICE),
    [WORKER_SERVICE]: await serviceSpec(rig, WORKER_SERVICE),
  };
}, 240_000);

afterAll(() => rig?.stop(), 60_000);

function upgrade(args: string[], timeoutMs = 120_000): Promise<RunResult> {
  return runRelease(
    [
      'upgrade',
      ...rigTarget(rig),
      // The crashing worker exits within a fraction of a second of starting: 1 s of watch is plenty.
      '--monitor',
      '1000',
      // A rollback that hangs must show up as exit 3 with each service's state, not a test timeout.
      '--rollback-timeout',
      '60000',
      '--json',
      ...args,
    ],
    { cwd: rig.repo.dir, timeoutMs },
  );
}

async function verify(expectTag: string): Promise<RunResult> {
  return runRelease(
    ['verify', '--url', rig.apiUrl, '--docker-host', rig.engine.host, '--no-cli', '--expect', expectTag],
    { cwd: rig.repo.dir },
  );
}

/** Both services exactly as before the upgrade (the whole spec, not only the image), and in step on v1. */
async function expectBackOnV1(): Promise<void> {
  expect(await serviceSpec(rig, API_SERVICE)).toEqual(v1Specs[API_SERVICE]);
  expect(await serviceSpec(rig, WORKER_SERVICE)).toEqual(v1Specs[WORKER_SERVICE]);
  const tasks = await rig.docker.listTasks({ filters: { 'desired-state': ['running'] } });
  const images = tasks.map(
    (t) => (t as { Spec: { ContainerSpec: { Image: string } } }).Spec.ContainerSpec.Image,
  );
  const v1 = rig.digests['v1.0.0']!;
  expect(images.sort()).toEqual(
    [pinned(rig, 'api', 'v1.0.0', v1.api), pinned(rig, 'worker', 'v1.0.0', v1.worker)].sort(),
  );
  const check = await verify('v1.0.0');
  expect(check.code, check.stdout + check.stderr).toBe(0);
}

function expectRolledBack(result: RunResult, kind: string): UpgradeJson {
  expect(result.code, result.stdout + result.stderr).toBe(1);
  const out = jsonOf<UpgradeJson>(result);
  expect(out.status).toBe('rolled-back');
  expect(out.failure?.kind).toBe(kind);
  expect(out.rolledBack.map((r) => `${r.role}:${r.status}`).sort()).toEqual([
    'api:restored',
    'worker:restored',
  ]);
  expect(out.proof).toMatchObject({ inStep: true, tag: 'v1.0.0' });
  expect(out.verdict).toContain('in step on v1.0.0');
  return out;
}

// What changes nothing runs at once (each is mostly a process starting); what changes the swarm
// runs after, one at a time.
describe.concurrent('release upgrade: plans and refusals, nothing changed', () => {
  it('--dry-run prints the plan and changes nothing', async () => {
    const before = await rig.docker.getService(API_SERVICE).inspect();
    const result = await upgrade(['--to', 'v2.0.0', '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    const out = jsonOf<UpgradeJson & { dryRun: boolean }>(result);
    expect(out.dryRun).toBe(true);
    const [phase] = out.plan.phases;
    expect(phase!.map((s) => [s.role, s.service, s.changes, s.order])).toEqual([
      ['api', API_SERVICE, true, 'stop-first'],
      ['worker', WORKER_SERVICE, true, 'start-first'],
    ]);
    expect(phase![0]!.to.image).toBe(pinned(rig, 'api', 'v2.0.0', rig.digests['v2.0.0']!.api));
    const after = await rig.docker.getService(API_SERVICE).inspect();
    expect(after.Version?.Index).toBe(before.Version?.Index);
    expect((await rig.docker.getService(WORKER_SERVICE).inspect()).Spec).toEqual(v1Specs[WORKER_SERVICE]);
  });

  it('named the API only, finds its worker by image as verify does (dry run, nothing changed)', async () => {
    const result = await runRelease(
      [
        'upgrade',
        '--to',
        'v2.0.0',
        '--url',
        rig.apiUrl,
        '--docker-host',
        rig.engine.host,
        '--service',
        `api=${API_SERVICE}`,
        '--dry-run',
        '--json',
      ],
      { cwd: rig.repo.dir },
    );
    expect(result.code, result.stderr).toBe(0);
    const out = jsonOf<UpgradeJson>(result);
    expect(out.plan.phases[0]!.map((s) => [s.role, s.service])).toEqual([
      ['api', API_SERVICE],
      ['worker', WORKER_SERVICE],
    ]);
    expect((await rig.docker.getService(WORKER_SERVICE).inspect()).Spec).toEqual(v1Specs[WORKER_SERVICE]);
  });

  it('warns when the target raises min_cli_version; refuses with --require-cli-compatible', async () => {
    const dry = await upgrade(['--to', 'v2.0.3', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain(
      'v2.0.3 raises min_cli_version from 1.0.0 to 9.0.0: every svc below 9.0.0 will be blocked',
    );
    expect(dry.stderr).toContain('npm install -g service-cli@2.0.3');
    expect(jsonOf<{ cliMinimum: { target: string } }>(dry).cliMinimum.target).toBe('9.0.0');

    const refused = await upgrade(['--to', 'v2.0.3', '--require-cli-compatible']);
    expect(refused.code).toBe(1);
    expect(jsonOf<{ error: { code: string } }>(refused).error.code).toBe('UPGRADE_CLI_INCOMPATIBLE');
    expect(await serviceSpec(rig, API_SERVICE)).toEqual(v1Specs[API_SERVICE]);
  });

  it('refuses an unsigned release when signing.publicKey is set, before any change', async () => {
    const { publicKey } = generateSigningKeys('upgrade-test-passphrase');
    writeFileSync(join(rig.repo.dir, 'release.pub'), publicKey.pem);
    writeFileSync(
      join(rig.repo.dir, 'signed.config.json'),
      JSON.stringify({ registry: rig.namespace, signing: { publicKey: 'release.pub' } }),
    );
    const result = await upgrade(['--to', 'v2.0.0', '--config', 'signed.config.json']);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stderr).toContain('refusing to upgrade to v2.0.0');
    expect(result.stderr).toContain('is not signed');
    expect(await serviceSpec(rig, API_SERVICE)).toEqual(v1Specs[API_SERVICE]);
    expect(await serviceSpec(rig, WORKER_SERVICE)).toEqual(v1Specs[WORKER_SERVICE]);
  });

  it('takes the URL and the service map from a deployment in the config', async () => {
    writeFileSync(
      join(rig.repo.dir, 'deploy.config.json'),
      JSON.stringify({
        registry: rig.namespace,
        deployments: [
          { name: 'prod', url: rig.apiUrl, services: { api: API_SERVICE, worker: WORKER_SERVICE } },
        ],
      }),
    );
    const result = await runRelease(
      [
        'upgrade',
        '--config',
        'deploy.config.json',
        '--deployment',
        'prod',
        '--to',
        'v2.0.0',
        '--docker-host',
        rig.engine.host,
        '--dry-run',
        '--json',
      ],
      { cwd: rig.repo.dir },
    );
    expect(result.code, result.stderr).toBe(0);
    const out = jsonOf<UpgradeJson>(result);
    expect(out.plan.phases[0]!.map((s) => s.service)).toEqual([API_SERVICE, WORKER_SERVICE]);
  });
});

describe('release upgrade on Docker Swarm', () => {
  it('rolls API and worker back when the v2 worker crashes on start', async () => {
    const out = expectRolledBack(await upgrade(['--to', 'v2.0.1']), 'task');
    expect(out.failure?.role).toBe('worker');
    expect(out.failure?.reason).toMatch(/failed/);
    await expectBackOnV1();
  }, 120_000);

  it('rolls back through a first start of the v1 API that fails, as when its port is still held', async () => {
    // What a loaded machine does by chance: the rollback's first v1 API task exits 2 (here always,
    // by the launcher; there, the task the upgrade was stopping still held the host port). Swarm's
    // restart policy starts another; the rollback must wait for it, not stop at the first failure.
    const since = Date.now();
    failNextStart(rig, 'v1.0.0');
    const out = expectRolledBack(await upgrade(['--to', 'v2.0.1']), 'task');
    expect(out.failure?.role).toBe('worker');
    expect(existsSync(failMarker(rig)), 'no v1 API task started').toBe(false);
    const v1Api = pinned(rig, 'api', 'v1.0.0', rig.digests['v1.0.0']!.api);
    const started = (
      (await rig.docker.listTasks({ filters: { service: [API_SERVICE] } })) as {
        CreatedAt: string;
        DesiredState: string;
        Spec: { ContainerSpec: { Image: string } };
        Status: { State: string; ContainerStatus?: { ExitCode?: number } };
      }[]
    ).filter((t) => t.Spec.ContainerSpec.Image === v1Api && Date.parse(t.CreatedAt) >= since);
    const failedOnStart = (t: (typeof started)[number]) =>
      t.Status.State === 'failed' && t.Status.ContainerStatus?.ExitCode === 2;
    expect(started.filter(failedOnStart).length).toBeGreaterThanOrEqual(1);
    // Every other v1 task of this run is the one running now: putting the user's own update config
    // back after the rollback restarted nothing.
    expect(
      started.filter((t) => !failedOnStart(t)).map((t) => `${t.DesiredState}/${t.Status.State}`),
    ).toEqual(['running/running']);
    await expectBackOnV1();
  }, 120_000);

  it('rolls API and worker back when the v2 API fails its health check', async () => {
    const out = expectRolledBack(await upgrade(['--to', 'v2.0.2']), 'task');
    expect(out.failure?.role).toBe('api');
    expect(out.failure?.reason).toContain('health check unhealthy');
    await expectBackOnV1();
  }, 120_000);

  it('rolls API and worker back when the v2 worker runs but reports another version', async () => {
    const out = expectRolledBack(await upgrade(['--to', 'v2.0.4']), 'version');
    expect(out.failure?.role).toBe('worker');
    expect(out.failure?.reason).toContain('reports v2.0.0, not v2.0.4');
    await expectBackOnV1();
  }, 120_000);

  it('rolls API and worker back when the deadline is too short', async () => {
    expectRolledBack(await upgrade(['--to', 'v2.0.0', '--timeout', '1000']), 'deadline');
    await expectBackOnV1();
  }, 120_000);

  it('exits 3 and reports each service when the rollback itself cannot finish in time', async () => {
    const result = await upgrade(['--to', 'v2.0.0', '--timeout', '1000', '--rollback-timeout', '1']);
    expect(result.code, result.stdout + result.stderr).toBe(3);
    const out = jsonOf<UpgradeJson>(result);
    expect(out.status).toBe('rollback-failed');
    const api = out.rolledBack.find((r) => r.role === 'api');
    expect(api).toMatchObject({ status: 'failed', detail: expect.stringContaining('did not converge') });
    expect(out.rolledBack.map((r) => r.role).sort()).toEqual(['api', 'worker']);
    expect(out.verdict).toContain('the rollback failed too');
    // The previous specs were put back all the same: Swarm finishes what the command stopped watching.
    expect(await serviceSpec(rig, API_SERVICE)).toEqual(v1Specs[API_SERVICE]);
    await waitFor(async () => ((await verify('v1.0.0')).code === 0 ? true : undefined), 60_000);
  }, 120_000);

  it('upgrades v1 -> v2: both services pinned to the v2 digests, verify in step', async () => {
    const result = await upgrade(['--to', 'v2.0.0']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const out = jsonOf<UpgradeJson>(result);
    expect(out.status).toBe('upgraded');
    expect(out.proof).toMatchObject({ inStep: true, tag: 'v2.0.0' });
    const v2 = rig.digests['v2.0.0']!;
    const api = await serviceSpec(rig, API_SERVICE);
    const worker = await serviceSpec(rig, WORKER_SERVICE);
    expect(api).toMatchObject({
      TaskTemplate: { ContainerSpec: { Image: pinned(rig, 'api', 'v2.0.0', v2.api) } },
    });
    expect(worker).toMatchObject({
      TaskTemplate: { ContainerSpec: { Image: pinned(rig, 'worker', 'v2.0.0', v2.worker) } },
    });
    // Everything else in the spec is kept: the API's port, its network, its labels.
    expect((api['TaskTemplate'] as { ContainerSpec: { Env: string[] } }).ContainerSpec.Env).toEqual([
      `PORT=${rig.apiPort}`,
      'HOST=127.0.0.1',
    ]);
    expect(api['Labels']).toEqual({ 'com.example.owner': 'upgrade-test' });
    const check = await verify('v2.0.0');
    expect(check.code, check.stdout + check.stderr).toBe(0);
  }, 120_000);

  it('an upgrade to where Swarm is already headed waits for it to settle: nothing written, exit 0, in step', async () => {
    // Runs after v1 -> v2. An operator puts both services back on v1 by hand, and runs the
    // upgrade to v1 at once: the specs already name v1 (nothing to change), but the v2 tasks are
    // still being stopped (a 2 s grace period). Proving at once would call that drift.
    for (const name of [API_SERVICE, WORKER_SERVICE]) {
      const service = rig.docker.getService(name);
      const { Version } = (await service.inspect()) as { Version: { Index: number } };
      await service.update({ version: Version.Index, ...v1Specs[name] });
    }
    const result = await upgrade(['--to', 'v1.0.0']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const out = jsonOf<UpgradeJson>(result);
    expect(out.status).toBe('up-to-date');
    expect(out.proof).toMatchObject({ inStep: true, tag: 'v1.0.0' });
    expect(out.events.map((e) => e.text)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^svc_api: already on sha256:.*; Swarm has settled$/)]),
    );
    // It wrote nothing: the specs are exactly the operator's.
    expect(await serviceSpec(rig, API_SERVICE)).toEqual(v1Specs[API_SERVICE]);
    expect(await serviceSpec(rig, WORKER_SERVICE)).toEqual(v1Specs[WORKER_SERVICE]);
  }, 120_000);
});
