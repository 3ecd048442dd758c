import { writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushImage } from '../../src/build-engines/docker/push-image.ts';
import type { Dockerd } from '../helpers/dockerd.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { Cleanup, startApi } from './support.ts';
import { buildWorkerImage, startWorkerEngine } from './worker-images.ts';

// One application image run as api, worker and scheduler, the role chosen by the container's
// command (Sentry's `run web|worker|cron`, Mattermost's `mattermost jobserver`), with the version
// in the service's own variable ACME_VERSION and no SERVICE_VERSION at all. `release verify
// --docker` reads each role on its own, as containers and as a Swarm service, on a real dockerd;
// `--registry` gives one registry reading per role against a real docker-registry, the image's
// tag read once.

const cleanup = new Cleanup();
let engine: Dockerd;
let docker: Docker;
let apiUrl: string;
let cwd: string;
let context: string;
const BASE = 'sr-roles-node-base:test';

/** The reference worker's bundle as the app: it runs whatever role its arguments say, and reports ACME_VERSION. */
function buildAppImage(context: string, tag: string, version: string) {
  return buildWorkerImage(docker, {
    base: BASE,
    context,
    tag,
    label: version,
    env: `ACME_VERSION=${version}`,
    cmd: ['/app/worker.mjs', 'api'],
  });
}

async function run(name: string, image: string, cmd?: string[]) {
  const container = await docker.createContainer({
    name,
    Image: image,
    ...(cmd ? { Cmd: cmd } : {}),
    HostConfig: { NetworkMode: 'host' },
  });
  await container.start();
  return container;
}

interface Report {
  inStep: boolean;
  artifacts: { name: string; role?: string; source: string; version: string | null; status: string }[];
  findings: { code: string; message: string; fix: string; source?: string }[];
}

async function verify() {
  const result = await runRelease(['verify', '--url', apiUrl, '--docker-host', engine.host, '--json'], {
    cwd,
  });
  return { result, report: jsonOf<Report>(result) };
}

beforeAll(async () => {
  cwd = cleanup.tempDir('cwd');
  writeFileSync(
    join(cwd, 'release.config.json'),
    JSON.stringify({
      versionVariables: { server: ['ACME_VERSION'] },
      artifacts: {
        api: { image: 'acme-app', context: '.' },
        worker: { image: 'acme-app', command: ['/app/worker.mjs', 'worker'] },
        scheduler: { role: 'worker', image: 'acme-app', command: ['/app/worker.mjs', 'scheduler'] },
        web: false,
      },
    }),
  );
  ({ engine, docker, context } = await startWorkerEngine(cleanup, BASE));
  await buildAppImage(context, 'acme-app:v1.3.0', 'v1.3.0');
  await buildAppImage(context, 'acme-app:v1.2.0', 'v1.2.0');
  // The API role runs the image's default command; the others name theirs.
  await run('acme-api', 'acme-app:v1.3.0');
  await run('acme-worker', 'acme-app:v1.3.0', ['/app/worker.mjs', 'worker']);
  apiUrl = (await startApi(cleanup, 'v1.3.0')).url;
}, 300_000);

afterAll(() => cleanup.run(), 120_000);

describe('verify --docker with one image in several roles', () => {
  it('reads every role on its own and says which role nothing runs (exit 3)', async () => {
    const { result, report } = await verify();
    expect(result.code, result.stdout).toBe(3);
    const rows = report.artifacts.map((a) => [a.name, a.role ?? null, a.version, a.status]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['api', null, 'v1.3.0', 'ok'],
        ['worker', null, 'v1.3.0', 'ok'],
        ['worker', 'scheduler', null, 'unreachable'],
      ]),
    );
    const container = report.artifacts.find((a) => a.source.includes('(acme-api)'));
    expect(container).toMatchObject({ name: 'api', version: 'v1.3.0' });
    expect(report.findings.map((f) => f.message)).toEqual([
      expect.stringContaining('runs "acme-app" as artifacts.scheduler (command /app/worker.mjs scheduler)'),
    ]);
  });

  it('is in step once the scheduler runs, one row per role, the version read from ACME_VERSION', async () => {
    const scheduler = await run('acme-scheduler', 'acme-app:v1.3.0', ['/app/worker.mjs', 'scheduler']);
    const { result, report } = await verify();
    expect(result.code, result.stdout).toBe(0);
    expect(report.artifacts.find((a) => a.role === 'scheduler')).toMatchObject({
      name: 'worker',
      version: 'v1.3.0',
      status: 'ok',
    });
    expect(report.artifacts.find((a) => a.source.includes('(acme-worker)'))).toMatchObject({
      name: 'worker',
    });
    expect(report.artifacts.find((a) => a.source.includes('(acme-worker)'))?.role).toBeUndefined();
    await scheduler.remove({ force: true });
  });

  it('names the role that drifted and the variable the service reads in the fix', async () => {
    const old = await run('acme-scheduler-old', 'acme-app:v1.2.0', ['/app/worker.mjs', 'scheduler']);
    try {
      const { result, report } = await verify();
      expect(result.code).toBe(1);
      const drift = report.findings.find((f) => f.code === 'API_WORKER_MISMATCH');
      expect(drift?.source).toContain('(acme-scheduler-old)');
      expect(drift?.fix).toContain('ACME_VERSION=v1.3.0');
      expect(drift?.fix).not.toContain('SERVICE_VERSION');
      expect(report.artifacts.find((a) => a.role === 'scheduler')).toMatchObject({
        version: 'v1.2.0',
        status: 'drift',
      });
    } finally {
      await old.remove({ force: true });
    }
  });

  it('reads a Swarm service of the image as the role its args run', async () => {
    await docker
      .swarmInit({ ListenAddr: '127.0.0.1:0', AdvertiseAddr: '127.0.0.1' })
      .catch(async (error: Error) => {
        if (!/port|address/i.test(error.message)) throw error;
        await docker.swarmInit({
          ListenAddr: `127.0.0.1:${20000 + (process.pid % 20000)}`,
          AdvertiseAddr: '127.0.0.1',
        });
      });
    await docker.createService({
      Name: 'acme_scheduler',
      TaskTemplate: {
        ContainerSpec: { Image: 'acme-app:v1.3.0', Args: ['/app/worker.mjs', 'scheduler'] },
        Networks: [],
      },
      Mode: { Replicated: { Replicas: 1 } },
    });
    const { result, report } = await verify();
    expect(result.code, result.stdout).toBe(0);
    expect(report.artifacts.find((a) => a.role === 'scheduler')).toMatchObject({
      source: expect.stringMatching(/^service .*\(acme_scheduler\)$/),
      version: 'v1.3.0',
      status: 'ok',
    });
  }, 120_000);
});

/**
 * A pass-through in front of the registry that notes each request's method and path: how many
 * times verify asks for one tag is what the registry itself is asked.
 */
async function countingProxy(target: string): Promise<{ host: string; seen: string[]; server: Server }> {
  const seen: string[] = [];
  const [hostname, port] = target.split(':') as [string, string];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const upstream = request(
      { hostname, port: Number(port), method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { host: `127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

describe('verify --docker --registry with one image in several roles', () => {
  let registry: RunningRegistry;
  let config: string;
  let release: string;
  let rc: string;
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  const push = async (local: string, tag: string) => {
    await docker.getImage(local).tag({ repo: `${registry.host}/acme/acme-app`, tag });
    return pushImage(docker, {
      registry: `${registry.host}/acme`,
      repository: 'acme-app',
      tag,
      env: { HOME: cwd },
    });
  };
  const ref = (tag: string) => `${registry.host}/acme/acme-app:${tag}`;
  const verifyRegistry = (json: boolean) =>
    runRelease(
      [
        'verify',
        '--url',
        apiUrl,
        '--docker-host',
        engine.host,
        '--config',
        config,
        '--registry',
        ...(json ? ['--json'] : []),
      ],
      { cwd },
    );

  beforeAll(async () => {
    // What the earlier cases left runs the local, never pushed image: out of the way.
    await docker
      .getService('acme_scheduler')
      .remove()
      .catch(() => undefined);
    for (const name of ['acme-api', 'acme-worker'])
      await docker
        .getContainer(name)
        .remove({ force: true })
        .catch(() => undefined);
    registry = await startRegistry();
    cleanup.add(() => registry.stop());
    await buildAppImage(context, 'acme-app:v1.3.0-rc.1', 'v1.3.0-rc.1');
    rc = await push('acme-app:v1.3.0-rc.1', 'v1.3.0-rc.1');
    release = await push('acme-app:v1.3.0', 'v1.3.0');
    proxy = await countingProxy(registry.host);
    cleanup.add(() => new Promise<void>((resolve) => proxy.server.close(() => resolve())));
    config = join(cwd, 'registry.config.json');
    writeFileSync(
      config,
      JSON.stringify({
        // verify reads the store through the proxy; the engine pulled straight from the registry.
        registry: `${proxy.host}/acme`,
        versionVariables: { server: ['ACME_VERSION'] },
        artifacts: {
          api: { image: 'acme-app', context: '.' },
          worker: { image: 'acme-app', command: ['/app/worker.mjs', 'worker'] },
          scheduler: { role: 'worker', image: 'acme-app', command: ['/app/worker.mjs', 'scheduler'] },
          web: false,
        },
      }),
    );
    await run('reg-api', ref('v1.3.0'));
    await run('reg-worker', ref('v1.3.0'), ['/app/worker.mjs', 'worker']);
  }, 300_000);

  it('gives one registry row per role, each against the digest its container runs; in step', async () => {
    const scheduler = await run('reg-scheduler', ref('v1.3.0'), ['/app/worker.mjs', 'scheduler']);
    try {
      const result = await verifyRegistry(true);
      expect(result.code, result.stdout).toBe(0);
      const report = jsonOf<Report & { registry: Record<string, unknown>[] }>(result);
      const rows = report.registry.map((r) => [
        r['artifact'],
        r['role'] ?? null,
        r['expected'],
        r['running'],
      ]);
      const runs = (name: string) => [{ source: expect.stringContaining(`(${name})`), digest: release }];
      expect(rows).toEqual([
        ['api', null, release, runs('reg-api')],
        ['worker', null, release, runs('reg-worker')],
        ['worker', 'scheduler', release, runs('reg-scheduler')],
      ]);
      const table = (await verifyRegistry(false)).stdout;
      const lines = table.split('\n').filter((l) => l.startsWith('registry '));
      expect(lines).toEqual([
        expect.stringContaining(': api acme-app:v1.3.0 = '),
        expect.stringContaining(': worker acme-app:v1.3.0 = '),
        expect.stringMatching(
          /: worker scheduler acme-app:v1\.3\.0 = sha256:.*\(reg-scheduler\) runs sha256:/,
        ),
      ]);
    } finally {
      await scheduler.remove({ force: true });
    }
  }, 120_000);

  it('reads the tag once for the three roles: one request for its digest, one for its provenance', async () => {
    const scheduler = await run('reg-scheduler', ref('v1.3.0'), ['/app/worker.mjs', 'scheduler']);
    try {
      proxy.seen.length = 0;
      const result = await verifyRegistry(true);
      expect(result.code, result.stdout).toBe(0);
      const tagReads = proxy.seen.filter((line) => line.endsWith('/v2/acme/acme-app/manifests/v1.3.0'));
      expect(tagReads, proxy.seen.join('\n')).toHaveLength(2);
      expect(new Set(proxy.seen.filter((line) => line.startsWith('GET'))).size).toBe(
        proxy.seen.filter((line) => line.startsWith('GET')).length,
      );
    } finally {
      await scheduler.remove({ force: true });
    }
  }, 120_000);

  it('a scheduler pinned at the rc digest is drift on its own row only', async () => {
    const scheduler = await run('reg-scheduler-rc', ref('v1.3.0-rc.1'), ['/app/worker.mjs', 'scheduler']);
    try {
      const result = await verifyRegistry(true);
      expect(result.code, result.stdout).toBe(1);
      const report = jsonOf<Report & { registry: { role?: string; running: { digest?: string }[] }[] }>(
        result,
      );
      const registryFindings = report.findings.filter((f) => f.code.startsWith('REGISTRY_'));
      expect(registryFindings.map((f) => [f.code, f.source])).toEqual([
        ['REGISTRY_DIGEST_MISMATCH', expect.stringContaining('(reg-scheduler-rc)')],
      ]);
      expect(registryFindings[0]!.message).toContain(rc);
      expect(registryFindings[0]!.fix).toContain(`redeploy scheduler from acme-app:v1.3.0@${release}`);
      expect(report.registry.find((r) => r.role === 'scheduler')?.running).toEqual([
        { source: expect.stringContaining('(reg-scheduler-rc)'), digest: rc },
      ]);
      const status = (name: string) => report.artifacts.find((a) => a.source.includes(`(${name})`))?.status;
      expect([status('reg-api'), status('reg-worker'), status('reg-scheduler-rc')]).toEqual([
        'ok',
        'ok',
        'drift',
      ]);
    } finally {
      await scheduler.remove({ force: true });
    }
  }, 120_000);
});
