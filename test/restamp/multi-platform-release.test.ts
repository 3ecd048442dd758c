import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION_LABEL } from '../../src/oci-image/version-layer.ts';
import { copyImage } from '../../src/registry/copy-image.ts';
import { openStore } from '../../src/registry/open-store.ts';
import { platformChildren } from '../../src/registry/platform-children.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { MEDIA_TYPES } from '../../src/registry/store.ts';
import { checkImageSignature, signImage } from '../../src/signing/image-signature.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { parsePrivateKey, parsePublicKey } from '../../src/signing/keys.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { makeImage, makeIndex, pushIndex } from '../helpers/make-image.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import {
  ARTIFACTS,
  type Artifact,
  pushTwoPlatformSet,
  REPOS,
  recordDigests,
  stampedProject,
} from '../promote/project.ts';
import { type InProcessDeployment, startInProcessDeployment } from '../verify/in-process-deployments.ts';

// A two-platform index (amd64 + arm64, as buildx pushes it) for each of api, worker and web on a
// real docker-registry: promoted to rc (signed), released from the rc, then verified. Each
// platform image must be signed (rc and release, the release child bound to its rc child) and
// verify must show, per platform, the version, the rc it was made from and equal code layers. A
// release index that lost a platform of its rc is drift.

const RC = 'v3.2.0-rc.1';
const RELEASE = 'v3.2.0';
const PASSPHRASE = 'multi-platform-test-passphrase';
const PLATFORMS = ['linux/amd64', 'linux/arm64'];
const env = { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE };

let registry: RunningRegistry;
let store: RegistryStore;
let repo: GitRepo;
let deployment: InProcessDeployment;
let work: string;
const rcIndex = {} as Record<Artifact, string>;

const release = (args: string[]) => runRelease(args, { cwd: repo.dir, env, timeoutMs: 60_000 });
const childrenOf = async (repository: string, reference: string) =>
  platformChildren((await store.getManifest(repository, reference))!.bytes)!;
const publicKey = () => {
  const path = join(repo.dir, 'release-signing.pub');
  return parsePublicKey(readFileSync(path, 'utf8'), path);
};

beforeAll(async () => {
  registry = await startRegistry();
  store = new RegistryStore({ registry: registry.host, env: {} });
  repo = await stampedProject(RC, {
    registry: registry.host,
    signing: { publicKey: 'release-signing.pub', privateKey: 'release-signing.key' },
  });
  await writeKeyPair(repo.dir, env);
  // What a buildx build leaves (web a Docker manifest list, found by verify through the rc tag).
  Object.assign(rcIndex, await pushTwoPlatformSet(store, RC));
  recordDigests(repo, rcIndex, RC);
  work = mkdtempSync(join(tmpdir(), 'sr-multi-platform-'));
  const webRoot = join(work, 'web');
  mkdirSync(webRoot);
  writeFileSync(join(webRoot, 'index.html'), '<!doctype html><title>web</title>');
  writeFileSync(join(webRoot, 'version.json'), JSON.stringify({ version: RELEASE }));
  deployment = await startInProcessDeployment({
    name: 'site',
    apiVersion: RELEASE,
    workerVersion: RELEASE,
    webRoot,
  });
}, 60_000);

afterAll(async () => {
  await deployment?.close();
  repo?.remove();
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

interface PlatformJson {
  platform: string;
  digest: string;
  imageVersion: string;
  madeFrom: string;
  rcVersion: string;
  codeLayers: { count: number; equal: boolean };
  restampMatches: boolean;
  rcSignature: string;
  releaseSignature: string;
}
interface VerifyJson {
  inStep: boolean;
  exitCode: number;
  findings: { code: string; artifact?: string; severity: string; message: string }[];
  provenance: {
    artifact: string;
    imageVersion: string;
    madeFrom: string;
    restampMatches: boolean;
    releaseSignature: string;
    platforms: PlatformJson[];
    missingPlatforms?: string[];
  }[];
  signatures: { artifact: string; status: string; platforms?: { platform: string; status: string }[] }[];
}

const verify = (...extra: string[]) =>
  release([
    'verify',
    ...['--url', deployment.url, '--web-url', deployment.webUrl, '--worker-url', deployment.workerUrl],
    ...['--expect', RELEASE, '--registry', '--no-cli', ...extra],
  ]);

describe('a two-platform index from rc to release', { timeout: 120_000 }, () => {
  it('the rc promotion signs each platform image and the index', async () => {
    const rc = await release(['promote', '--channel', 'rc', '--json']);
    expect(rc.code, rc.stderr).toBe(0);
    const out = jsonOf<{ signing: { artifacts: Record<string, { platforms: { platform: string }[] }> } }>(rc);
    for (const a of ARTIFACTS) {
      expect(out.signing.artifacts[a]!.platforms.map((p) => p.platform)).toEqual(PLATFORMS);
      expect((await store.resolve(REPOS[a], RC))!.digest).toBe(rcIndex[a]);
      // Each child's signature referrer exists and verifies with the public key alone.
      for (const child of await childrenOf(REPOS[a], RC)) {
        const check = await checkImageSignature(store, publicKey(), {
          repository: REPOS[a],
          digest: child.digest,
        });
        expect(check.status, `${a} ${child.platform}: ${check.reason}`).toBe('valid');
      }
      const index = await checkImageSignature(store, publicKey(), {
        repository: REPOS[a],
        digest: rcIndex[a],
      });
      expect(index.status).toBe('valid');
    }
  });

  it('the release re-stamps each platform and signs each child bound to its rc child', async () => {
    repo.tag(RELEASE);
    const run = await release([
      'promote',
      '--channel',
      'release',
      '--from',
      RC,
      '--version',
      RELEASE,
      '--json',
    ]);
    expect(run.code, run.stderr).toBe(0);
    for (const a of ARTIFACTS) {
      const released = (await store.getManifest(REPOS[a], RELEASE))!;
      expect(released.descriptor.mediaType).toBe(
        a === 'web' ? MEDIA_TYPES.dockerManifestList : MEDIA_TYPES.ociIndex,
      );
      const rcChildren = await childrenOf(REPOS[a], RC);
      const children = platformChildren(released.bytes)!;
      expect(children.map((c) => c.platform)).toEqual(PLATFORMS);
      for (const child of children) {
        const rcChild = rcChildren.find((c) => c.platform === child.platform)!;
        expect(child.digest).not.toBe(rcChild.digest);
        const check = await checkImageSignature(store, publicKey(), {
          repository: REPOS[a],
          digest: child.digest,
        });
        expect(check.status, `${a} ${child.platform}: ${check.reason}`).toBe('valid');
        expect(check.signatures.find((s) => s.valid)?.madeFrom).toBe(rcChild.digest);
      }
      const index = await checkImageSignature(store, publicKey(), {
        repository: REPOS[a],
        digest: released.descriptor.digest,
      });
      expect(index.signatures.find((s) => s.valid)?.madeFrom).toBe(rcIndex[a]);
    }
  });

  it('verify --registry shows each platform as the signed rc re-stamped, in step', async () => {
    const result = await verify('--json');
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const out = jsonOf<VerifyJson>(result);
    for (const a of ARTIFACTS) {
      const p = out.provenance.find((r) => r.artifact === a)!;
      expect(p).toMatchObject({
        imageVersion: RELEASE,
        madeFrom: rcIndex[a],
        restampMatches: true,
        releaseSignature: 'bound',
      });
      const rcChildren = await childrenOf(REPOS[a], RC);
      expect(p.platforms.map((c) => c.platform)).toEqual(PLATFORMS);
      for (const c of p.platforms) {
        expect(c).toMatchObject({
          imageVersion: RELEASE,
          madeFrom: rcChildren.find((r) => r.platform === c.platform)!.digest,
          rcVersion: RC,
          codeLayers: { count: 1, equal: true },
          restampMatches: true,
          rcSignature: 'valid',
          releaseSignature: 'bound',
        });
      }
      // By tag, the signature check covers the index and each platform image.
      const signature = out.signatures.find((s) => s.artifact === a)!;
      expect(signature.status).toBe('valid');
      expect(signature.platforms?.map((s) => [s.platform, s.status])).toEqual(
        PLATFORMS.map((p) => [p, 'valid']),
      );
    }
    const text = await verify();
    expect(text.code, text.stdout).toBe(0);
    expect(text.stdout).not.toContain('not made from an rc');
    for (const platform of PLATFORMS) {
      expect(text.stdout).toMatch(
        new RegExp(
          `  ${platform}@sha256:[0-9a-f]{12}… reports ${RELEASE}, made from sha256:[0-9a-f]{12}… \\(${RC}\\), 1 code layer\\(s\\) equal to the rc's, exactly the rc re-stamped, rc signature valid, release signature bound`,
        ),
      );
    }
    expect(text.stdout).toContain('in step at v3.2.0');
  });

  it('a release index that lost a platform of its rc is drift, exit 1', async () => {
    // The worker's release tag moved to an index with its amd64 image only (arm64 dropped).
    const released = (await store.getManifest(REPOS.worker, RELEASE))!;
    const json = JSON.parse(Buffer.from(released.bytes).toString('utf8'));
    json.manifests = json.manifests.filter(
      (m: { platform: { architecture: string } }) => m.platform.architecture === 'amd64',
    );
    await store.putManifest(REPOS.worker, RELEASE, Buffer.from(JSON.stringify(json)), MEDIA_TYPES.ociIndex);
    try {
      const result = await verify('--json');
      expect(result.code, result.stdout).toBe(1);
      const out = jsonOf<VerifyJson>(result);
      const worker = out.provenance.find((p) => p.artifact === 'worker')!;
      expect(worker.missingPlatforms).toEqual(['linux/arm64']);
      expect(worker.platforms.map((p) => [p.platform, p.restampMatches, p.releaseSignature])).toEqual([
        ['linux/amd64', true, 'bound'],
      ]);
      const missing = out.findings.filter((f) => f.code === 'RELEASE_PLATFORM_MISSING');
      expect(missing.map((f) => [f.artifact, f.severity])).toEqual([['worker', 'drift']]);
      expect(missing[0]!.message).toContain('linux/arm64');
      const text = await verify();
      expect(text.code).toBe(1);
      expect(text.stdout).toContain('  linux/arm64: MISSING (the rc has it)');
      expect(text.stdout).toMatch(/x RELEASE_PLATFORM_MISSING: worker: /);
    } finally {
      await store.putManifest(REPOS.worker, RELEASE, released.bytes, released.descriptor.mediaType);
    }
  });

  it("copying the release to another store carries each platform image's signatures", async () => {
    const dir = join(work, 'layout');
    const layout = openStore(`oci-layout:${dir}`, { cwd: work, env: {} });
    const copied = await copyImage(store, REPOS.api, RELEASE, layout, REPOS.api, RELEASE);
    // The index's signature and one per platform image, and the release set attached to each
    // (these images were never built by the toolkit: no SBOM or provenance to carry).
    expect(copied.referrers).toBe(6);
    for (const child of await childrenOf(REPOS.api, RELEASE)) {
      const check = await checkImageSignature(layout, publicKey(), {
        repository: REPOS.api,
        digest: child.digest,
      });
      expect(check.status, `${child.platform}: ${check.reason}`).toBe('valid');
    }
  });

  it('release sign <image>:<tag> signs each platform image of an index, then the index', async () => {
    const index = makeIndex([makeImage({ architecture: 'amd64' }), makeImage({ architecture: 'arm64' })]);
    const digest = await pushIndex(store, REPOS.api, index, 'v3.3.0-rc.1');
    const run = await release(['sign', `${REPOS.api}:v3.3.0-rc.1`]);
    expect(run.code, run.stderr).toBe(0);
    for (const child of await childrenOf(REPOS.api, digest)) {
      expect(run.stdout).toContain(`    ${child.platform} ${REPOS.api}@${child.digest}  signature sha256:`);
      const check = await checkImageSignature(store, publicKey(), {
        repository: REPOS.api,
        digest: child.digest,
      });
      expect(check.status, `${child.platform}: ${check.reason}`).toBe('valid');
    }
    expect((await checkImageSignature(store, publicKey(), { repository: REPOS.api, digest })).status).toBe(
      'valid',
    );
  });

  it('a release from an rc whose platform images are unsigned (only its index is) is refused, nothing written', async () => {
    const rc = 'v3.4.0-rc.1';
    const keyPath = join(repo.dir, 'release-signing.key');
    const key = parsePrivateKey(readFileSync(keyPath, 'utf8'), PASSPHRASE, keyPath);
    for (const a of ARTIFACTS) {
      const labels = { [VERSION_LABEL]: rc };
      const index = makeIndex([
        makeImage({ architecture: 'amd64', labels }),
        makeImage({ architecture: 'arm64', labels }),
      ]);
      const digest = await pushIndex(store, REPOS[a], index, rc);
      await signImage(store, key, { repository: REPOS[a], digest }); // the index alone, as before this change
    }
    repo.tag('v3.4.0');
    const run = await release([
      'promote',
      '--channel',
      'release',
      '--from',
      rc,
      '--version',
      'v3.4.0',
      '--json',
    ]);
    expect(run.code, run.stdout).toBe(1);
    const error = jsonOf<{ error: { code: string; message: string } }>(run).error;
    expect(error.code).toBe('RC_SIGNATURE_INVALID');
    expect(error.message).toContain('the linux/amd64 image: no signature is attached');
    for (const a of ARTIFACTS) expect(await store.resolve(REPOS[a], 'v3.4.0')).toBeUndefined();
    // The fix the refusal names: `release sign <rc>` signs the children the index lacked.
    const signed = await release(['sign', rc, '--json']);
    expect(signed.code, signed.stderr).toBe(0);
    const images = jsonOf<{ images: { status: string; platforms: unknown[] }[] }>(signed).images;
    expect(images.map((i) => [i.status, i.platforms.length])).toEqual(ARTIFACTS.map(() => ['signed', 2]));
    const again = await release(['promote', '--channel', 'release', '--from', rc, '--version', 'v3.4.0']);
    expect(again.code, again.stderr).toBe(0);
  });
});
