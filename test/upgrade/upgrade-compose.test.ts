import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireLock } from '../../src/files/file-lock.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';
import {
  type ComposeRig,
  composeByHand,
  composeTarget,
  composeUpByHand,
  runningImages,
  sha256Of,
  startComposeRig,
} from './compose.ts';
import { deriveImage, waitFor } from './swarm.ts';

// `release upgrade --compose` on a real Compose project (Debian's docker-compose v1 on a private
// dockerd), with images `release build` pushed to a real docker-registry. Every failing upgrade
// must end with every service back on v1 and `release verify --compose` in step on v1; the
// user's compose file is never changed.

interface ComposeUpgradeJson {
  status: string;
  exitCode: number;
  verdict: string;
  dryRun: boolean;
  compose: { cli: string; project: string; override: string };
  plan: {
    oneShots: { service: string; changes: boolean }[];
    phases: {
      service: string;
      role: string;
      why: string;
      changes: boolean;
      orderReason: string;
      to: { image: string };
    }[][];
    pins: Record<string, string>;
  };
  failure: { kind: string; reason: string } | null;
  rolledBack: { name: string; status: string; detail: string }[];
  proof: { inStep: boolean; tag: string } | null;
  events: { ms: number; text: string }[];
  containers: { service: string; state: string; digest: string | null; version: string | null }[];
}

let rig: ComposeRig;
let fileHash: string;
let v1Images: Record<string, string[]>;

beforeAll(async () => {
  rig = await startComposeRig();
  // Bad releases made from v2: a worker whose entry point is missing (exits on start), and an API
  // whose image health check probes a path it does not serve. Their partners are healthy.
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
    // Every node process of this worker image fails at start: the one-shot init (which runs it
    // first) exits 1 before any other service is touched.
    deriveImage(rig, 'api', 'v2.0.0', 'v2.0.3', ['ENV SERVICE_VERSION=v2.0.3']),
    deriveImage(rig, 'worker', 'v2.0.0', 'v2.0.3', [
      'ENV SERVICE_VERSION=v2.0.3',
      'ENV NODE_OPTIONS=--require=/app/no-such-preload.cjs',
    ]),
  ]);
  await composeUpByHand(rig, 'v1.0.0');
  fileHash = sha256Of(rig.file);
  v1Images = await runningImages(rig);
}, 240_000);

afterAll(() => rig?.stop(), 60_000);

function upgrade(args: string[]): Promise<RunResult> {
  return runRelease(
    ['upgrade', ...composeTarget(rig), '--monitor', '1000', '--rollback-timeout', '60000', '--json', ...args],
    { cwd: rig.repo.dir, timeoutMs: 150_000 },
  );
}

function verify(expectTag: string): Promise<RunResult> {
  return runRelease(
    [
      'verify',
      ...['--url', rig.apiUrl, '--docker-host', rig.engine.host, '--compose', rig.file],
      ...['--no-cli', '--expect', expectTag, '--json'],
    ],
    { cwd: rig.repo.dir },
  );
}

const overridePath = () => join(rig.file, '..', '.release', `${rig.project}.override.yml`);
const lockPath = () => join(rig.file, '..', '.release', `${rig.project}.upgrade.lock`);

async function expectBackOnV1(result: RunResult, kind: string): Promise<ComposeUpgradeJson> {
  expect(result.code, result.stdout + result.stderr).toBe(1);
  const out = jsonOf<ComposeUpgradeJson>(result);
  expect(out.status).toBe('rolled-back');
  expect(out.failure?.kind).toBe(kind);
  expect(out.proof).toMatchObject({ inStep: true, tag: 'v1.0.0' });
  expect(out.rolledBack.every((r) => r.status === 'restored')).toBe(true);
  expect(await runningImages(rig)).toEqual(v1Images);
  // There was no override before: the rollback leaves none.
  expect(existsSync(overridePath())).toBe(false);
  const check = await verify('v1.0.0');
  expect(check.code, check.stdout + check.stderr).toBe(0);
  return out;
}

// A deadline only, as long as an upgrade's own (150 s) and its verify: each test waits on real
// containers, several times the default on a loaded machine.
describe.sequential('release upgrade --compose', { timeout: 240_000 }, () => {
  it('--dry-run prints the plan, writes no override and changes no container', async () => {
    const before = await rig.docker.listContainers({ all: true });
    const result = await upgrade(['--to', 'v2.0.0', '--dry-run']);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const out = jsonOf<ComposeUpgradeJson>(result);
    expect(out.dryRun).toBe(true);
    expect(out.compose).toMatchObject({ cli: expect.stringContaining('docker-compose'), project: 'shop' });
    expect(out.plan.oneShots.map((s) => s.service)).toEqual(['init']);
    // The scheduler runs the worker's image: it moves with the worker, and the plan says why.
    expect(out.plan.phases[0]!.map((s) => [s.service, s.role, s.changes])).toEqual([
      ['api', 'api', true],
      ['worker', 'worker', true],
      ['scheduler', 'worker', true],
    ]);
    expect(out.plan.phases[0]![2]!.why).toBe('runs the worker image');
    expect(out.plan.phases[0]![0]!.orderReason).toContain('container_name "shop-api"');
    const v2 = rig.digests['v2.0.0']!;
    expect(out.plan.pins).toEqual({
      init: `${rig.namespace}/service-worker:v2.0.0@${v2.worker}`,
      api: `${rig.namespace}/service-api:v2.0.0@${v2.api}`,
      worker: `${rig.namespace}/service-worker:v2.0.0@${v2.worker}`,
      scheduler: `${rig.namespace}/service-worker:v2.0.0@${v2.worker}`,
    });
    // For a person: the plan as a table, where the override would go, and that nothing changed.
    const text = await runRelease(['upgrade', ...composeTarget(rig), '--to', 'v2.0.0', '--dry-run'], {
      cwd: rig.repo.dir,
    });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('plan: upgrade Compose project shop to v2.0.0 (dry run)');
    expect(text.stdout).toMatch(/first\s+init\s+worker\s+api waits for it to complete/);
    expect(text.stdout).toMatch(/scheduler\s+worker\s+runs the worker image/);
    expect(text.stdout).toContain(`override: ${overridePath()} (your compose files are not changed)`);
    expect(text.stdout).toContain('dry run: nothing was written, no container was changed');
    expect(existsSync(overridePath())).toBe(false);
    const after = await rig.docker.listContainers({ all: true });
    expect(after.map((c) => `${c.Id} ${c.State}`).sort()).toEqual(
      before.map((c) => `${c.Id} ${c.State}`).sort(),
    );
    expect(sha256Of(rig.file)).toBe(fileHash);
  });

  it('a v2 worker that exits on start: API, worker and scheduler back on v1, exit 1', async () => {
    const out = await expectBackOnV1(await upgrade(['--to', 'v2.0.1']), 'task');
    expect(out.failure?.reason).toMatch(/worker: container .*exited with code/);
    expect(sha256Of(rig.file)).toBe(fileHash);
  });

  it('an API whose health check fails: back on v1, exit 1', async () => {
    const out = await expectBackOnV1(await upgrade(['--to', 'v2.0.2']), 'task');
    expect(out.failure?.reason).toContain('api: container shop-api is unhealthy');
    expect(sha256Of(rig.file)).toBe(fileHash);
  });

  it('a one-shot that fails: nothing else recreated, back on v1, exit 1', async () => {
    const out = await expectBackOnV1(await upgrade(['--to', 'v2.0.3']), 'task');
    expect(out.failure?.reason).toMatch(/one-shot init .* exited with code 1/);
    expect(out.rolledBack.map((r) => r.name)).toEqual(['init']);
    expect(sha256Of(rig.file)).toBe(fileHash);
  });

  it('refuses, before any change, a --service the compose files do not define and a missing file (exit 2)', async () => {
    const [unknown, missing] = await Promise.all([
      runRelease(
        [
          'upgrade',
          '--to',
          'v2.0.0',
          ...composeTarget(rig).map((a) => (a === 'api=api' ? 'api=backend' : a)),
        ],
        { cwd: rig.repo.dir },
      ),
      runRelease(
        [
          'upgrade',
          '--to',
          'v2.0.0',
          ...composeTarget(rig).map((a) => (a === rig.file ? `${rig.file}.nope` : a)),
        ],
        { cwd: rig.repo.dir },
      ),
    ]);
    expect(unknown.code, unknown.stdout + unknown.stderr).toBe(2);
    expect(unknown.stdout + unknown.stderr).toContain('the compose files have no service "backend"');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');
    expect(existsSync(overridePath())).toBe(false);
    expect(await runningImages(rig)).toEqual(v1Images);
  });

  it('a second upgrade of the project while one is under way: exit 3, before any container is read or changed', async () => {
    // This process holds the project's lock, as a running upgrade does.
    mkdirSync(dirname(lockPath()), { recursive: true });
    const unlock = await acquireLock(lockPath(), { what: 'the test' });
    try {
      const result = await upgrade(['--to', 'v2.0.0']);
      expect(result.code, result.stdout + result.stderr).toBe(3);
      const { error } = jsonOf<{ error: { code: string; message: string; hint: string } }>(result);
      expect(error.code).toBe('UPGRADE_UNDER_WAY');
      expect(error.message).toContain(`held by pid ${process.pid}`);
      expect(error.hint).toContain(
        `another release upgrade of Compose project "${rig.project}" is under way`,
      );
      expect(existsSync(overridePath())).toBe(false);
      expect(await runningImages(rig)).toEqual(v1Images);
    } finally {
      await unlock();
    }
  });

  it('a deadline too short to converge: back on v1, exit 1', async () => {
    const out = await expectBackOnV1(await upgrade(['--to', 'v2.0.0', '--timeout', '1500']), 'deadline');
    expect(out.failure?.reason).toContain('before the deadline');
    expect(sha256Of(rig.file)).toBe(fileHash);
  });

  it('a rollback that does not finish in time: exit 3, each service reported with the state of its containers', async () => {
    // The worker crashes as before; the rollback is given 1 ms to come back, so it cannot.
    const result = await upgrade(['--to', 'v2.0.1', '--rollback-timeout', '1']);
    expect(result.code, result.stdout + result.stderr).toBe(3);
    const out = jsonOf<ComposeUpgradeJson>(result);
    expect(out.status).toBe('rollback-failed');
    expect(out.rolledBack.map((r) => [r.name, r.status])).toEqual([
      ['init', 'failed'],
      ['api', 'failed'],
      ['worker', 'failed'],
      ['scheduler', 'failed'],
    ]);
    const api = out.rolledBack.find((r) => r.name === 'api')!;
    expect(api.detail).toMatch(/now api: shop-api (running|created|restarting)/);
    expect(out.verdict).toContain('the rollback failed too');
    expect(sha256Of(rig.file)).toBe(fileHash);
    // Compose itself finished putting v1 back; the command only stopped watching.
    await waitFor(async () => ((await verify('v1.0.0')).code === 0 ? true : undefined), 60_000);
    expect(await runningImages(rig)).toEqual(v1Images);
  });

  it('v1 -> v2 (files and services from the config): every service of both images on the v2 digests, both worker replicas checked, then web, verify in step', async () => {
    // Upgrade needs only the registry and the deployment from the config.
    writeFileSync(
      join(rig.repo.dir, 'compose.config.json'),
      JSON.stringify({
        registry: rig.namespace,
        deployments: [
          {
            name: 'shop',
            url: rig.apiUrl,
            webUrl: rig.webUrl,
            services: { api: 'api', worker: 'worker', web: 'web' },
            compose: { files: [rig.file] },
          },
        ],
      }),
    );
    const result = await runRelease(
      [
        'upgrade',
        ...['--config', 'compose.config.json', '--deployment', 'shop', '--to', 'v2.0.0'],
        ...['--docker-host', rig.engine.host, '--monitor', '1000', '--json'],
      ],
      { cwd: rig.repo.dir, timeoutMs: 150_000 },
    );
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const out = jsonOf<ComposeUpgradeJson>(result);
    expect(out.status).toBe('upgraded');
    expect(out.proof).toMatchObject({ inStep: true, tag: 'v2.0.0' });
    const v2 = rig.digests['v2.0.0']!;
    const worker = `${rig.namespace}/service-worker:v2.0.0@${v2.worker}`;
    expect(await runningImages(rig)).toEqual({
      api: [`${rig.namespace}/service-api:v2.0.0@${v2.api}`],
      worker: [worker, worker],
      scheduler: [worker],
      web: [`${rig.namespace}/service-web:v2.0.0@${v2.web}`],
    });
    // Web moves in a phase of its own, after API and worker report v2, and reports it too.
    expect(out.plan.phases.map((phase) => phase.map((m) => m.service).sort())).toEqual([
      ['api', 'scheduler', 'worker'],
      ['web'],
    ]);
    const events = out.events.map((e) => e.text);
    const reported = (service: string) =>
      events.findIndex(
        (t) => t.endsWith(': report v2.0.0') && t.split(':')[0]!.split(', ').includes(service),
      );
    expect(reported('worker')).toBeGreaterThan(-1);
    expect(reported('web')).toBeGreaterThan(reported('worker'));
    const workers = out.containers.filter((c) => c.service === 'worker');
    expect(workers.map((c) => [c.state, c.digest, c.version])).toEqual([
      ['running', v2.worker, 'v2.0.0'],
      ['running', v2.worker, 'v2.0.0'],
    ]);
    // The one-shot ran again on v2, and finished.
    expect(out.containers.filter((c) => c.service === 'init').map((c) => [c.state, c.digest])).toEqual([
      ['exited', v2.worker],
    ]);
    expect(readFileSync(overridePath(), 'utf8')).toContain(`image: "${worker}"`);
    expect(sha256Of(rig.file)).toBe(fileHash);
    // The project's lock is released with the upgrade.
    expect(existsSync(lockPath())).toBe(false);

    const check = await verify('v2.0.0');
    expect(check.code, check.stdout + check.stderr).toBe(0);
    const report = jsonOf<{
      artifacts: { name: string; version: string; source: string; status: string; detail?: string }[];
      findings: { code: string }[];
    }>(check);
    const workerRows = report.artifacts.filter((a) => a.name === 'worker');
    // Both replicas, the scheduler and the finished one-shot: every container of the worker image.
    expect(workerRows.length).toBe(4);
    expect(workerRows.every((r) => r.version === 'v2.0.0')).toBe(true);
    // The one-shot (API and worker wait for it to complete) exited 0: done, not a stopped leftover.
    const init = workerRows.find((r) => r.source.includes('compose service init'));
    expect(init?.detail).toContain('a one-shot job, completed (exit 0)');
    expect(init?.status).toBe('ok');
    expect(report.findings.map((f) => f.code)).not.toContain('WORKER_STOPPED');

    // `verify --all` reads the same containers for a Compose deployment of the config.
    const fleet = await runRelease(
      ['verify', '--all', '--config', 'compose.config.json', '--no-cli', '--expect', 'v2.0.0', '--json'],
      { cwd: rig.repo.dir, env: { DOCKER_HOST: rig.engine.host } },
    );
    expect(fleet.code, fleet.stdout + fleet.stderr).toBe(0);
    const [shop] = jsonOf<{ deployments: { artifacts: { name: string }[] }[] }>(fleet).deployments;
    expect(shop!.artifacts.filter((a) => a.name === 'worker').length).toBe(4);
  });
});

describe.sequential('release verify --compose', () => {
  it("sees a service left on an old digest among the project's containers: drift, exit 1", async () => {
    // Runs after the upgrade to v2: the operator brings the scheduler back to v1 by hand.
    await composeByHand(rig, ['up', '-d', '--no-deps', 'scheduler'], {
      WORKER_IMAGE: `${rig.namespace}/service-worker:v1.0.0`,
    });
    const check = await verify('v2.0.0');
    expect(check.code, check.stdout + check.stderr).toBe(1);
    const report = jsonOf<{ artifacts: { name: string; version: string; source: string }[] }>(check);
    const scheduler = report.artifacts.find((a) => a.source.includes('compose service scheduler'));
    expect(scheduler?.version).toBe('v1.0.0');
  });
});
