import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeBaseImage } from '../../src/engine/base-image.ts';
import { followProgress, progressError } from '../../src/engine/docker/connect.ts';
import { loadBaseIntoDocker } from '../../src/engine/docker/load-base.ts';
import { readBaseImage } from '../../src/engine/oci/base-image-reader.ts';
import { packTar } from '../../src/engine/oci/layer.ts';
import { openStore } from '../../src/registry/open-store.ts';
import { bundleArtifact } from '../../src/service/build/bundle.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { Cleanup, startApi } from './support.ts';

// One application image run as api, worker and scheduler, the role chosen by the container's
// command (Sentry's `run web|worker|cron`, Mattermost's `mattermost jobserver`), with the version
// in the service's own variable ACME_VERSION and no SERVICE_VERSION at all. `release verify
// --docker` reads each role on its own, as containers and as a Swarm service, on a real dockerd.

const cleanup = new Cleanup();
let engine: Dockerd;
let docker: Docker;
let apiUrl: string;
let cwd: string;
const BASE = 'sr-roles-node-base:test';

/** The reference worker's bundle as the app: it runs whatever role its arguments say, and reports ACME_VERSION. */
async function buildAppImage(context: string, tag: string, version: string) {
  const tar = await packTar(
    [
      {
        type: 'file',
        path: 'Dockerfile',
        content: [
          `FROM ${BASE}`,
          'COPY worker.mjs /app/worker.mjs',
          `LABEL org.opencontainers.image.version=${version}`,
          `ENV ACME_VERSION=${version} WORKER_HEALTH_HOST=127.0.0.1 WORKER_HEALTH_PORT=0`,
          'CMD ["/app/worker.mjs", "api"]',
          '',
        ].join('\n'),
      },
      { type: 'file', path: 'worker.mjs', source: join(context, 'worker.mjs') },
    ],
    0,
  );
  const stream = await docker.buildImage(tar as unknown as NodeJS.ReadableStream, { t: tag, rm: true });
  const error = progressError(await followProgress(stream));
  if (error) throw new Error(`docker build ${tag}: ${error}`);
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
  engine = await startDockerd();
  cleanup.add(() => engine.stop());
  docker = engine.docker;
  const layoutDir = cleanup.tempDir('layout');
  const store = openStore(`oci-layout:${layoutDir}`, { cwd: layoutDir, env: {} });
  await makeBaseImage({ store, repository: 'node-base', tags: ['test'], epoch: 0 });
  await loadBaseIntoDocker(docker, await readBaseImage(store, 'node-base', 'test', 'node-base:test'), BASE);
  const context = cleanup.tempDir('context');
  await bundleArtifact('worker', join(context, 'worker.mjs'));
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
