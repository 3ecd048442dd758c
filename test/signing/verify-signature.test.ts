import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeBaseImage } from '../../src/build-engines/base-image.ts';
import { loadBaseIntoDocker } from '../../src/build-engines/docker/load-base.ts';
import { pushImage as pushFromDocker } from '../../src/build-engines/docker/push-image.ts';
import { followProgress, progressError } from '../../src/docker-client/connect.ts';
import { userCacheDir } from '../../src/files/user-cache-dir.ts';
import { readBaseImage } from '../../src/oci-image/base-image-reader.ts';
import { packTar } from '../../src/oci-image/layer.ts';
import { openStore } from '../../src/registry/open-store.ts';
import { bundleArtifact } from '../../src/service/build/bundle.ts';
import { signImage } from '../../src/signing/image-signature.ts';
import { generateSigningKeys, parsePrivateKey } from '../../src/signing/keys.ts';
import { startDockerd } from '../helpers/dockerd.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { Cleanup, startApi, startWorker } from '../verify/support.ts';
import { IMAGES, type SigningProject, signingProject } from './fixture.ts';

// `release verify` shows whether each image's digest carries a valid signature from the configured
// key, against a real docker-registry and the real reference API and worker processes; with
// --docker, the digest a real container runs.

interface Report {
  exitCode: number;
  findings: { code: string; message: string; severity: string; artifact?: string; source?: string }[];
  signatures?: { artifact: string; digest: string | null; of: string; status: string; reason: string }[];
}

const cleanup = new Cleanup();
let p: SigningProject;
let api: string;
let worker: string;
let rc: Record<keyof typeof IMAGES, string>;

beforeAll(async () => {
  p = await signingProject();
  cleanup.add(() => p.cleanup());
  rc = await p.pushAll('v1.2.0');
  [api, worker] = await Promise.all([
    startApi(cleanup, 'v1.2.0').then((s) => s.url),
    startWorker(cleanup, 'v1.2.0').then((s) => s.url),
  ]);
  await signImage(p.store, p.key, { repository: IMAGES.api, digest: rc.api });
}, 180_000);
afterAll(() => cleanup.run(), 120_000);

const verify = async (extra: string[]) => {
  const result = await runRelease(['verify', '--url', api, '--worker-url', worker, '--no-cli', ...extra], {
    cwd: p.dir,
  });
  return { result, report: extra.includes('--json') ? jsonOf<Report>(result) : undefined };
};

describe('release verify --require-signature (the digests the deployment’s tag names)', () => {
  it('turns an unsigned image into drift, naming it and the digest', async () => {
    const { result, report } = await verify(['--require-signature', '--json']);
    expect(result.code, result.stderr).toBe(1);
    expect(report!.signatures).toEqual([
      expect.objectContaining({ artifact: 'api', digest: rc.api, of: 'service-api:v1.2.0', status: 'valid' }),
      expect.objectContaining({ artifact: 'worker', digest: rc.worker, status: 'missing' }),
    ]);
    expect(report!.findings).toEqual([
      expect.objectContaining({
        code: 'SIGNATURE_MISSING',
        severity: 'drift',
        artifact: 'worker',
        message: `worker: service-worker@${rc.worker} (service-worker:v1.2.0) is not signed: no signature is attached to ${rc.worker}`,
      }),
    ]);
  });

  it('refuses a signature by another key, and shows each image in the table', async () => {
    const stranger = generateSigningKeys('another-passphrase');
    await signImage(p.store, parsePrivateKey(stranger.privatePem, 'another-passphrase', 'x'), {
      repository: IMAGES.worker,
      digest: rc.worker,
    });
    const { result } = await verify(['--require-signature']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /signature service-api@sha256:[0-9a-f]{12}… \(service-api:v1\.2\.0\): valid, key [0-9a-f]{16}/,
    );
    expect(result.stdout).toContain('signature service-worker@');
    expect(result.stdout).toContain('INVALID: signed by another key');
    expect(result.stdout).toContain('x SIGNATURE_INVALID: worker:');
  });

  it('is in step once every image is signed by the configured key', async () => {
    await signImage(p.store, p.key, { repository: IMAGES.worker, digest: rc.worker });
    const { result, report } = await verify(['--require-signature', '--json']);
    expect(result.code, result.stdout).toBe(0);
    expect(report!.signatures!.map((s) => s.status)).toEqual(['valid', 'valid']);
  });

  it('needs signing.publicKey (exit 2)', async () => {
    const other = cleanup.tempDir('nokey');
    writeFileSync(join(other, 'release.config.json'), JSON.stringify({ registry: p.registry.host }));
    const result = await runRelease(['verify', '--url', api, '--no-cli', '--require-signature'], {
      cwd: other,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--require-signature needs signing.publicKey');
  });

  it('says when the tag is not in the store, so nothing could be checked', async () => {
    const { result, report } = await verify(['--require-signature', '--expect', 'v9.9.9', '--json']);
    expect(result.code).toBe(1);
    expect(report!.findings.filter((f) => f.code === 'SIGNATURE_UNCHECKED').map((f) => f.message)).toEqual([
      `api: could not check the signature of service-api (service-api:v9.9.9): service-api:v9.9.9 is not in ${p.registry.host}`,
      `worker: could not check the signature of service-worker (service-worker:v9.9.9): service-worker:v9.9.9 is not in ${p.registry.host}`,
    ]);
  });
});

describe('release verify --docker --registry: the digest a container runs', () => {
  const BASE = 'sr-sign-node-base:test';
  let docker: Docker;
  let engineHost: string;
  let running: string;

  beforeAll(async () => {
    const engine = await startDockerd();
    cleanup.add(() => engine.stop());
    docker = engine.docker;
    engineHost = engine.host;
    const layoutDir = cleanup.tempDir('layout');
    const layout = openStore(`oci-layout:${layoutDir}`, { cwd: layoutDir, env: {} });
    await makeBaseImage({
      store: layout,
      repository: 'node-base',
      tags: ['test'],
      epoch: 0,
      cacheDir: userCacheDir(process.env),
    });
    await loadBaseIntoDocker(
      docker,
      await readBaseImage(layout, 'node-base', 'test', 'node-base:test'),
      BASE,
    );
    const context = cleanup.tempDir('context');
    await bundleArtifact('worker', join(context, 'worker.mjs'));
    const tar = await packTar(
      [
        {
          type: 'file',
          path: 'Dockerfile',
          content: `FROM ${BASE}\nCOPY worker.mjs /app/worker.mjs\nLABEL org.opencontainers.image.version=1.2.0\nENV SERVICE_VERSION=v1.2.0 WORKER_HEALTH_HOST=127.0.0.1 WORKER_HEALTH_PORT=0\nCMD ["/app/worker.mjs"]\n`,
        },
        { type: 'file', path: 'worker.mjs', source: join(context, 'worker.mjs') },
      ],
      0,
    );
    const repo = `${p.registry.host}/docker-worker`;
    const build = await docker.buildImage(tar as unknown as NodeJS.ReadableStream, {
      t: `${repo}:v1.2.0`,
      rm: true,
    });
    const error = progressError(await followProgress(build));
    if (error) throw new Error(`docker build: ${error}`);
    running = await pushFromDocker(docker, {
      registry: p.registry.host,
      repository: 'docker-worker',
      tag: 'v1.2.0',
      env: { HOME: p.dir },
    });
    const container = await docker.createContainer({
      name: 'signed-worker',
      Image: `${repo}:v1.2.0`,
      HostConfig: { NetworkMode: 'host' },
    });
    await container.start();
    writeFileSync(
      join(p.dir, 'docker.config.json'),
      JSON.stringify({
        registry: p.registry.host,
        artifacts: { worker: { image: 'docker-worker' } },
        signing: { publicKey: 'release-signing.pub' },
      }),
    );
  }, 300_000);

  const verifyDocker = async (extra: string[]) => {
    const result = await runRelease(
      [
        'verify',
        '--url',
        api,
        '--docker-host',
        engineHost,
        '--registry',
        '--config',
        'docker.config.json',
        '--no-cli',
        '--json',
        ...extra,
      ],
      { cwd: p.dir },
    );
    return { result, report: jsonOf<Report>(result) };
  };

  it('shows an unsigned running digest as a notice, and as drift with --require-signature', async () => {
    const shown = await verifyDocker([]);
    expect(shown.result.code, shown.result.stdout).toBe(0);
    expect(shown.report.signatures).toEqual([
      expect.objectContaining({ artifact: 'api', status: 'valid' }),
      expect.objectContaining({
        artifact: 'worker',
        digest: running,
        of: expect.stringContaining('(signed-worker)'),
        status: 'missing',
      }),
    ]);
    expect(shown.report.findings).toContainEqual(
      expect.objectContaining({
        code: 'SIGNATURE_MISSING',
        severity: 'notice',
        source: expect.stringContaining('(signed-worker)'),
      }),
    );
    const required = await verifyDocker(['--require-signature']);
    expect(required.result.code).toBe(1);
  });

  it('is in step when the running digest is signed by the configured key', async () => {
    await signImage(p.store, p.key, { repository: 'docker-worker', digest: running });
    const { result, report } = await verifyDocker(['--require-signature']);
    expect(result.code, result.stdout).toBe(0);
    expect(report.signatures!.find((s) => s.artifact === 'worker')).toMatchObject({
      digest: running,
      status: 'valid',
    });
  });
});
