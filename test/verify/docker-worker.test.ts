import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushImage } from '../../src/build-engines/docker/push-image.ts';
import { probeWorkerDocker } from '../../src/verify/probes/worker-docker.ts';
import type { Dockerd } from '../helpers/dockerd.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { Cleanup, startApi } from './support.ts';
import { buildWorkerImage, startWorkerEngine } from './worker-images.ts';

// The worker probe against a real, private dockerd: worker images built FROM a node base made on
// this machine (nothing can be pulled), real containers running the bundled reference worker, and
// a Swarm service on a single-node swarm.

const cleanup = new Cleanup();
let engine: Dockerd;
let docker: Docker;
let apiUrl: string;
let cwd: string;
const BASE = 'sr-verify-node-base:test';

/** The reference worker reporting `version` (SERVICE_VERSION), its image labelled `label`. */
function buildVersionedWorker(context: string, tag: string, version: string, label: string) {
  return buildWorkerImage(docker, {
    base: BASE,
    context,
    tag,
    label,
    env: `SERVICE_VERSION=${version}`,
    cmd: ['/app/worker.mjs'],
  });
}

async function runContainer(name: string, image: string, env: string[] = [], start = true) {
  const container = await docker.createContainer({
    name,
    Image: image,
    Env: env,
    HostConfig: { NetworkMode: 'host' },
  });
  if (start) await container.start();
  return container;
}

beforeAll(async () => {
  cwd = cleanup.tempDir('cwd');
  let context: string;
  ({ engine, docker, context } = await startWorkerEngine(cleanup, BASE));
  await buildVersionedWorker(context, 'service-worker:v1.4.0', 'v1.4.0', '1.4.0');
  await buildVersionedWorker(context, '127.0.0.1:5999/acme/service-worker:v1.3.2', 'v1.3.2', '1.3.2');

  await runContainer('worker-current', 'service-worker:v1.4.0');
  // Not a worker: the probe must leave it out.
  await runContainer('something-else', BASE, [], false);

  apiUrl = (await startApi(cleanup, 'v1.4.0')).url;
}, 300_000);

afterAll(() => cleanup.run(), 120_000);

async function verifyDocker(extra: string[] = []) {
  const result = await runRelease(
    ['verify', '--url', apiUrl, '--docker-host', engine.host, '--no-cli', '--json', ...extra],
    { cwd },
  );
  return {
    result,
    report: jsonOf<{
      inStep: boolean;
      artifacts: Record<string, string | null>[];
      findings: Record<string, string>[];
      registry?: unknown[];
    }>(result),
  };
}

describe('worker probe on a real Docker engine', () => {
  it('reads a running worker container: SERVICE_VERSION, the OCI label and the tag agree; in step', async () => {
    const results = await probeWorkerDocker({
      host: engine.host,
      image: 'service-worker',
      env: {},
      timeoutMs: 10_000,
    });
    expect(results).toHaveLength(1);
    const [worker] = results;
    expect(worker).toMatchObject({
      name: 'worker',
      version: 'v1.4.0',
      image: 'service-worker:v1.4.0',
      running: true,
      evidence: { env: 'v1.4.0', label: '1.4.0', tag: 'v1.4.0' },
    });
    expect(worker!.source).toMatch(/^container [0-9a-f]{12} \(worker-current\)$/);

    const { result, report } = await verifyDocker();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(report.inStep).toBe(true);
  });

  it('finds a worker container that overrides SERVICE_VERSION on an older image', async () => {
    const c = await runContainer('worker-override', '127.0.0.1:5999/acme/service-worker:v1.3.2', [
      'SERVICE_VERSION=v1.4.0',
    ]);
    try {
      const { result, report } = await verifyDocker();
      expect(result.code).toBe(1);
      const f = report.findings.find((x) => x['code'] === 'WORKER_ENV_OVERRIDES_IMAGE');
      expect(f?.['message']).toContain('built as 1.3.2');
      expect(f?.['source']).toContain('(worker-override)');
    } finally {
      await c.remove({ force: true });
    }
  });

  it('reads a Swarm service behind the API and names the run-time consequence', async () => {
    await docker
      .swarmInit({ ListenAddr: '127.0.0.1:0', AdvertiseAddr: '127.0.0.1' })
      .catch(async (error: Error) => {
        // Some engines refuse port 0: take a port of our own.
        if (!/port|address/i.test(error.message)) throw error;
        await docker.swarmInit({
          ListenAddr: `127.0.0.1:${20000 + (process.pid % 20000)}`,
          AdvertiseAddr: '127.0.0.1',
        });
      });
    await docker.createService({
      Name: 'worker-svc',
      TaskTemplate: {
        ContainerSpec: { Image: '127.0.0.1:5999/acme/service-worker:v1.3.2' },
        Networks: [],
      },
      Mode: { Replicated: { Replicas: 1 } },
    });
    // Swarm starts a task container for the service; the probe must count it once, as the service.
    const task = await waitFor(async () => {
      const tasks = await docker.listContainers({
        all: true,
        filters: { label: ['com.docker.swarm.service.name=worker-svc'] },
      });
      return tasks[0];
    }, 30_000);
    const results = await probeWorkerDocker({
      host: engine.host,
      image: 'service-worker',
      env: {},
      timeoutMs: 10_000,
    });
    expect(results.filter((r) => r.source.includes(task.Id.slice(0, 12)))).toEqual([]);
    expect(results).toHaveLength(2);
    const service = results.find((r) => r.source.startsWith('service '));
    // The label comes from the engine's copy of the image, as a service spec carries none.
    expect(service).toMatchObject({ version: '1.3.2', evidence: { label: '1.3.2', tag: 'v1.3.2' } });
    expect(service!.source).toMatch(/\(worker-svc\)$/);

    const { result, report } = await verifyDocker();
    expect(result.code).toBe(1);
    const mismatch = report.findings.filter((f) => f['code'] === 'API_WORKER_MISMATCH');
    expect(mismatch).toHaveLength(1);
    expect(mismatch[0]!['source']).toContain('(worker-svc)');
    expect(mismatch[0]!['message']).toContain('the worker cannot find a method the API serialized');
  });

  it("reads a worker configured by Docker Hub's full name (netbox-docker's docker.io/...) as the engine writes it short", async () => {
    // The engine lists the container as `service-worker:v1.4.0`; the Swarm service's image is on
    // another registry (127.0.0.1:5999/acme/...), so it is not Docker Hub's and stays out.
    const results = await probeWorkerDocker({
      host: engine.host,
      image: 'docker.io/library/service-worker',
      env: {},
      timeoutMs: 10_000,
    });
    expect(results.map((r) => r.image)).toEqual(['service-worker:v1.4.0']);
    expect(results[0]).toMatchObject({ version: 'v1.4.0', running: true });
    expect(results[0]!.source).toMatch(/\(worker-current\)$/);
  });

  it('says so (exit 3) when the engine runs no worker of the configured image', async () => {
    const { result, report } = await verifyDocker([
      '--config',
      await configWithWorkerImage('service-other-worker'),
    ]);
    expect(result.code).toBe(3);
    expect(report.findings[0]).toMatchObject({ code: 'WORKER_UNREACHABLE' });
    expect(report.findings[0]!['message']).toContain(
      'no container or Swarm service on this engine runs an image of "service-other-worker"',
    );
  });

  it('exits 3 when the engine cannot be reached', async () => {
    const { result, report } = await verifyDocker(['--docker-host', `unix://${join(cwd, 'no.sock')}`]);
    expect(result.code).toBe(3);
    expect(report.findings[0]!['message']).toContain('cannot read the Docker engine');
  });
});

async function waitFor<T>(read: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function configWithWorkerImage(image: string): Promise<string> {
  const path = join(cwd, 'release.config.json');
  await writeFile(path, JSON.stringify({ artifacts: { worker: { image } } }));
  return path;
}

describe('--registry: the digest running against the digest the tag names', () => {
  let registry: RunningRegistry;
  let config: string;
  let pushed: string;

  beforeAll(async () => {
    registry = await startRegistry();
    cleanup.add(() => registry.stop());
    const repo = `${registry.host}/acme/reg-worker`;
    await docker.getImage('service-worker:v1.4.0').tag({ repo, tag: 'v1.4.0' });
    pushed = await pushImage(docker, {
      registry: `${registry.host}/acme`,
      repository: 'reg-worker',
      tag: 'v1.4.0',
      env: { HOME: cwd },
    });
    await runContainer('reg-current', `${repo}:v1.4.0`);
    config = join(cwd, 'registry.config.json');
    await writeFile(
      config,
      JSON.stringify({ registry: `${registry.host}/acme`, artifacts: { worker: { image: 'reg-worker' } } }),
    );
  }, 120_000);

  const verifyRegistry = (extra: string[] = []) => verifyDocker(['--config', config, '--registry', ...extra]);

  it('is in step when the container runs the digest the release tag names', async () => {
    const { result, report } = await verifyRegistry();
    expect(result.code, result.stdout).toBe(0);
    expect(report.registry).toEqual([
      {
        artifact: 'worker',
        repository: 'reg-worker',
        tag: 'v1.4.0',
        store: `${registry.host}/acme`,
        expected: pushed,
        running: [{ source: expect.stringContaining('(reg-current)'), digest: pushed }],
      },
    ]);
  });

  it('exits 1 when the tag has moved to other bytes since the container started', async () => {
    const repo = `${registry.host}/acme/reg-worker`;
    await docker.getImage('127.0.0.1:5999/acme/service-worker:v1.3.2').tag({ repo, tag: 'v1.4.0' });
    const moved = await pushImage(docker, {
      registry: `${registry.host}/acme`,
      repository: 'reg-worker',
      tag: 'v1.4.0',
      env: { HOME: cwd },
    });
    expect(moved).not.toBe(pushed);
    const { result, report } = await verifyRegistry();
    expect(result.code).toBe(1);
    expect(report.findings.map((f) => f['code'])).toEqual(['REGISTRY_DIGEST_MISMATCH']);
    expect(report.findings[0]!['message']).toContain(pushed);
    expect(report.findings[0]!['message']).toContain(moved);
    expect(report.findings[0]!['fix']).toContain(`reg-worker:v1.4.0@${moved}`);
  });

  it('says the expected tag is missing from the registry', async () => {
    const { result, report } = await verifyRegistry(['--expect', 'v9.9.9']);
    expect(result.code).toBe(1);
    expect(report.findings.map((f) => f['code'])).toContain('REGISTRY_TAG_MISSING');
  });

  it('--registry without --docker reads the release images from the store, no running digests', async () => {
    const result = await runRelease(['verify', '--url', apiUrl, '--registry', '--no-cli', '--json'], { cwd });
    expect(result.code, result.stderr).not.toBe(2);
    const report = jsonOf<{ registry: unknown[]; provenance: { artifact: string }[] }>(result);
    expect(report.registry).toEqual([]);
    expect(report.provenance.map((p) => p.artifact)).toEqual(['api', 'worker', 'web']);
  });
});
