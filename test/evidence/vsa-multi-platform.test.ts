import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attestRelease, releaseImages } from '../../src/evidence/attest-release.ts';
import { vsasFromStore } from '../../src/evidence/read-vsa.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { signImage } from '../../src/signing/image-signature.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { parsePrivateKey, parsePublicKey } from '../../src/signing/keys.ts';
import { judgeVsas } from '../../src/verify/checks/check-vsa.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { makeImage, pushImage } from '../helpers/make-image.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { runRelease } from '../helpers/run-release.ts';
import { ARTIFACTS, pushRelease, REPOS, recordDigests, stampedProject } from '../promote/project.ts';
import { bundleOf, referrersOf, verifyDsse } from './dsse.ts';

// A two-platform rc (what immich and most self-hosted services publish: amd64 + arm64 indexes)
// signed with its release set on a real docker-registry. A node pulls a platform image by its own
// digest, and a gate looks the summary up by that digest: each child must carry one.

const RC = 'v2.0.0-rc.1';
const PASSPHRASE = 'vsa-multi-passphrase';
const VSA_TYPE = 'https://slsa.dev/verification_summary/v1';

let registry: RunningRegistry;
let repo: GitRepo;
let store: RegistryStore;

beforeAll(async () => {
  registry = await startRegistry();
  repo = await stampedProject(RC, { registry: `${registry.host}/multi` });
  await writeKeyPair(join(repo.dir, 'keys'), { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE });
  await writeKeyPair(join(repo.dir, 'vkeys'), { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE });
  const configPath = join(repo.dir, 'release.config.json');
  const config = JSON.parse(readFileSync(configPath, 'utf8'));
  config.signing = { publicKey: 'keys/release-signing.pub', privateKey: 'keys/release-signing.key' };
  writeFileSync(configPath, JSON.stringify(config));
  store = new RegistryStore({ registry: `${registry.host}/multi`, env: {} });
  recordDigests(
    repo,
    (await pushRelease(store, [], { multiArch: true })) as Parameters<typeof recordDigests>[1],
  );
  const promoted = await runRelease(['promote', '--channel', 'rc'], {
    cwd: repo.dir,
    env: { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE },
  });
  expect(promoted.code, promoted.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  repo?.remove();
  await registry?.stop();
});

describe('verification summaries of a two-platform release', () => {
  it('cover the index and every platform image, each carrying them, and --vsa judges them covered', async () => {
    const read = (path: string) => readFileSync(join(repo.dir, path), 'utf8');
    const releaseKey = parsePublicKey(read('keys/release-signing.pub'), 'release');
    const verifierKey = parsePrivateKey(read('vkeys/release-signing.key'), PASSPHRASE, 'verifier');
    const images = await releaseImages(
      store,
      ARTIFACTS.map((a) => ({ name: a, repository: REPOS[a] })),
      RC,
    );
    for (const image of images) expect(image.children, image.repository).toHaveLength(2);
    const summaries = await attestRelease({
      store,
      releaseKey,
      verifierKey,
      verifier: { id: 'https://gate.example/verifier', version: 'test' },
      images,
      policy: { checks: ['signature', 'release-set'], releaseKey: releaseKey.keyId, version: RC },
      passed: true,
      wholeRelease: true,
      timeVerified: new Date().toISOString(),
    });
    expect(summaries.map((s) => s.about)).toEqual([...ARTIFACTS, 'release-set']);
    const verifierPem = read('vkeys/release-signing.pub');
    for (const image of images) {
      for (const digest of [image.digest, ...image.children]) {
        const [own] = await referrersOf(store, image.repository, digest, VSA_TYPE);
        expect(own, `${image.repository}@${digest}`).toBeDefined();
        const statement = JSON.parse(
          verifyDsse(await bundleOf(store, image.repository, own!.digest), verifierPem)!.toString('utf8'),
        ) as { subject: { digest: { sha256: string } }[]; predicate: { verifiedLevels: string[] } };
        expect(statement.subject.map((s) => `sha256:${s.digest.sha256}`)).toContain(digest);
        // No SBOM or provenance on these images: nothing supports a build level.
        expect(statement.predicate.verifiedLevels).toEqual(['SLSA_BUILD_LEVEL_0']);
      }
    }
    const digests = images.map((i) => ({
      artifact: i.artifact,
      repository: i.repository,
      digests: [i.digest, ...i.children],
    }));
    const readings = await vsasFromStore(store, verifierKey.publicKey, digests);
    // Four summaries, each read once however many digests carry it.
    expect(readings).toHaveLength(4);
    const { verdicts, uncovered } = judgeVsas(readings, { version: RC, images: digests }, ['release-set']);
    expect(verdicts.every((v) => v.accepted)).toBe(true);
    expect(uncovered).toEqual([]);
    // Without the release set's summary, each child is still covered by its image's own.
    const own = readings.filter((r) => !r.claim?.resourceUri.startsWith('urn:'));
    expect(judgeVsas(own, { version: RC, images: digests }, []).uncovered).toEqual([]);
  });

  it('a verify of the registry alone reads every platform image: an unsigned one is drift', async () => {
    const verify = (tag: string) =>
      runRelease(['verify', '--registry', '--expect', tag, '--require-signature', '--json'], {
        cwd: repo.dir,
        env: { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE },
      });
    type Report = {
      findings: { code: string; artifact?: string }[];
      signatures: {
        repository: string;
        status: string;
        platforms?: { platform: string; status: string }[];
      }[];
    };
    const signed = await verify(RC);
    expect(signed.code, signed.stdout + signed.stderr).toBe(0);
    const platforms = (JSON.parse(signed.stdout) as Report).signatures.map((s) =>
      s.platforms?.map((p) => `${p.platform} ${p.status}`),
    );
    expect(platforms).toEqual(ARTIFACTS.map(() => ['linux/amd64 valid', 'linux/arm64 valid']));
    // rc.2: the api index signed, its amd64 image the rc's (signed), its arm64 image new and
    // signed by nobody; the other images the rc's.
    const RC2 = 'v2.0.0-rc.2';
    const api = (await store.getManifest(REPOS.api, RC))!;
    const rcIndex = JSON.parse(Buffer.from(api.bytes).toString('utf8')) as { manifests: unknown[] };
    const arm64 = makeImage({ architecture: 'arm64' });
    await pushImage(store, REPOS.api, arm64);
    const indexBytes = Buffer.from(
      JSON.stringify({ ...rcIndex, manifests: [rcIndex.manifests[0], arm64.descriptor] }),
    );
    const indexDigest = (await store.putManifest(REPOS.api, RC2, indexBytes, api.descriptor.mediaType))
      .digest;
    await signImage(
      store,
      parsePrivateKey(
        readFileSync(join(repo.dir, 'keys/release-signing.key'), 'utf8'),
        PASSPHRASE,
        'release',
      ),
      {
        repository: REPOS.api,
        digest: indexDigest,
      },
    );
    for (const a of ARTIFACTS.filter((a) => a !== 'api')) {
      const rc = (await store.getManifest(REPOS[a], RC))!;
      await store.putManifest(REPOS[a], RC2, rc.bytes, rc.descriptor.mediaType);
    }
    const unsigned = await verify(RC2);
    expect(unsigned.code, unsigned.stdout + unsigned.stderr).toBe(1);
    const report = JSON.parse(unsigned.stdout) as Report;
    expect(
      report.signatures
        .find((s) => s.repository === REPOS.api)
        ?.platforms?.map((p) => `${p.platform} ${p.status}`),
    ).toEqual(['linux/amd64 valid', 'linux/arm64 missing']);
    expect(
      report.findings.filter((f) => f.code.startsWith('SIGNATURE_')).map((f) => [f.code, f.artifact]),
    ).toEqual([['SIGNATURE_MISSING', 'api']]);
  });
});
