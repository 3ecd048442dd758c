import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followProgress, progressError } from '../../src/docker-client/connect.ts';
import { VERSION_LABEL } from '../../src/oci-image/version-layer.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { signImage } from '../../src/signing/image-signature.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { parsePrivateKey, type SigningKey } from '../../src/signing/keys.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import { makeImage, makeIndex, pushImage, pushIndex } from '../helpers/make-image.ts';
import { makePauseImage } from '../helpers/pause-image.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { type InProcessDeployment, startInProcessDeployment } from './in-process-deployments.ts';
import { Cleanup } from './support.ts';

// `release verify --docker-host … --require-signature` on a private dockerd whose worker container
// runs the linux/amd64 image of a two-platform index, pulled by that child's digest (what a node
// runs). The running child is accepted only once it and its index are both signed.

const TAG = 'v3.2.0';
const PASSPHRASE = 'docker-platform-passphrase';
const cleanup = new Cleanup();
let registry: RunningRegistry;
let store: RegistryStore;
let engine: Dockerd;
let deployment: InProcessDeployment;
let cwd: string;
let key: SigningKey;
let child: string;
let index: string;

beforeAll(async () => {
  cwd = cleanup.tempDir('platform-cwd');
  [registry, engine] = await Promise.all([startRegistry(), startDockerd()]);
  cleanup.add(() => registry.stop());
  cleanup.add(() => engine.stop());
  store = new RegistryStore({ registry: registry.host, env: {} });
  const keys = await writeKeyPair(cwd, { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE });
  key = parsePrivateKey(readFileSync(keys.privateKey, 'utf8'), PASSPHRASE, keys.privateKey);
  writeFileSync(
    join(cwd, 'release.config.json'),
    JSON.stringify({ registry: registry.host, signing: { publicKey: 'release-signing.pub' } }),
  );
  // The worker: amd64 runs a real (tiny) program; arm64 is only there to make it an index.
  const amd64 = makePauseImage({ env: [`SERVICE_VERSION=${TAG}`], labels: { [VERSION_LABEL]: TAG } });
  const arm64 = makeImage({ architecture: 'arm64', labels: { [VERSION_LABEL]: TAG } });
  child = amd64.descriptor.digest;
  index = await pushIndex(store, 'service-worker', makeIndex([amd64, arm64]), TAG);
  // API and web are single images at the same tag, signed: only the worker's signatures vary.
  for (const repository of ['service-api', 'service-web']) {
    const digest = await pushImage(store, repository, makeImage({ labels: { [VERSION_LABEL]: TAG } }), TAG);
    await signImage(store, key, { repository, digest });
  }
  const ref = `${registry.host}/service-worker@${child}`;
  const pulled = await engine.docker.pull(ref);
  const error = progressError(await followProgress(pulled));
  if (error) throw new Error(`docker pull ${ref}: ${error}`);
  const container = await engine.docker.createContainer({
    name: 'worker-amd64',
    Image: ref,
    HostConfig: { NetworkMode: 'none' },
  });
  cleanup.add(() => container.remove({ force: true }));
  await container.start();

  const webRoot = join(cwd, 'web');
  mkdirSync(webRoot);
  writeFileSync(join(webRoot, 'version.json'), JSON.stringify({ version: TAG }));
  deployment = await startInProcessDeployment({ name: 'site', apiVersion: TAG, workerVersion: TAG, webRoot });
  cleanup.add(() => deployment.close());
}, 120_000);

afterAll(() => cleanup.run(), 60_000);

interface VerifyJson {
  exitCode: number;
  findings: { code: string; artifact?: string; severity: string; message: string }[];
  registry: { artifact: string; expected: string; running: { digest: string }[] }[];
  signatures: {
    artifact: string;
    digest: string;
    running: boolean;
    status: string;
    reason: string;
    platform?: string;
    index?: string;
  }[];
}

const verify = () =>
  runRelease(
    [
      'verify',
      ...['--url', deployment.url, '--web-url', deployment.webUrl, '--docker-host', engine.host],
      ...['--expect', TAG, '--require-signature', '--no-cli', '--json'],
    ],
    { cwd, timeoutMs: 60_000 },
  );

describe('--require-signature with --docker, a platform image of an index running', {
  timeout: 60_000,
}, () => {
  it('refuses the running child while only it is signed: its index is not', async () => {
    await signImage(store, key, { repository: 'service-worker', digest: child });
    const result = await verify();
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const out = jsonOf<VerifyJson>(result);
    // What runs is the tag's bytes (a platform image of its index): no registry drift.
    expect(out.registry.find((r) => r.artifact === 'worker')).toMatchObject({
      expected: index,
      running: [{ digest: child }],
    });
    expect(out.findings.map((f) => f.code)).not.toContain('REGISTRY_DIGEST_MISMATCH');
    const worker = out.signatures.find((s) => s.artifact === 'worker')!;
    expect(worker).toMatchObject({
      digest: child,
      running: true,
      status: 'missing',
      platform: 'linux/amd64',
      index,
    });
    expect(out.findings.find((f) => f.code === 'SIGNATURE_MISSING')).toMatchObject({
      artifact: 'worker',
      severity: 'drift',
    });
  });

  it('accepts the running child once it and its index are signed', async () => {
    await signImage(store, key, { repository: 'service-worker', digest: index });
    const result = await verify();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const worker = jsonOf<VerifyJson>(result).signatures.find((s) => s.artifact === 'worker')!;
    expect(worker).toMatchObject({ digest: child, status: 'valid', platform: 'linux/amd64', index });
    expect(worker.reason).toContain('as is its index');
  });
});
