import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import CycloneDX from '@cyclonedx/cyclonedx-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/registry/open-store.ts';
import type { ImageStore } from '../../src/registry/store.ts';
import { fixtureProject } from '../fixtures/fixture-project.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { bundleOf, referrersOf, verifyDsse } from './dsse.ts';

// fixtures/acme-oci built with the oci engine and the release key at hand: each image's SBOM and
// provenance, written beside the record and attached to the image in the OCI layout, checked
// the way a customer would (the CycloneDX library's validator, node:crypto and the public key).

const RC = 'v1.0.0-rc.1';
const PASSPHRASE = 'evidence-test-passphrase';
const IMAGES = { api: 'acme-api', worker: 'acme-worker', web: 'acme-web' } as const;
const SBOM_TYPE = 'https://cyclonedx.org/bom';
const PROVENANCE_TYPE = 'https://slsa.dev/provenance/v1';

describe('release build --engine oci: SBOM and provenance per image', () => {
  let repo: GitRepo;
  let store: ImageStore;
  let commit: string;
  let build: { images: Record<string, { digest: string }> };
  const release = async (args: string[]) => {
    const result = await runRelease([...args, '--json'], {
      cwd: repo.dir,
      env: { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE },
      timeoutMs: 240_000,
    });
    expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
    return jsonOf<Record<string, unknown>>(result);
  };
  const evidence = (name: string) => readFileSync(join(repo.dir, 'dist/evidence', name));
  const publicKey = () => readFileSync(join(repo.dir, 'keys/release-signing.pub'), 'utf8');

  beforeAll(async () => {
    repo = fixtureProject('acme-oci');
    // Vendored npm packages in the worker's files: what the SBOM must find in the image.
    repo.write('.gitignore', '/node_modules/\ndist/\n.release/\napi/dist/\nweb/dist/\nkeys/\n');
    mkdirSync(join(repo.dir, 'worker/node_modules/@acme/util'), { recursive: true });
    mkdirSync(join(repo.dir, 'worker/node_modules/left-pad'), { recursive: true });
    repo.write(
      'worker/node_modules/left-pad/package.json',
      JSON.stringify({ name: 'left-pad', version: '1.3.0', license: 'WTFPL' }),
    );
    repo.write(
      'worker/node_modules/@acme/util/package.json',
      JSON.stringify({ name: '@acme/util', version: '2.1.0', license: 'MIT' }),
    );
    commit = repo.commit('acme');
    repo.tag(RC);
    await release(['keygen', '--out', 'keys']);
    await release(['stamp']);
    build = (await release(['build', '--engine', 'oci'])) as typeof build;
    expect((build as unknown as { evidence: unknown }).evidence).toEqual({
      dir: 'dist/evidence',
      signed: true,
    });
    store = openStore('oci-layout:.release/oci', { cwd: repo.dir, env: {} });
  }, 300_000);
  afterAll(() => repo?.remove());

  it('writes a CycloneDX 1.6 SBOM per image that the library validates', async () => {
    const validator = new CycloneDX.Validation.JsonStrictValidator(CycloneDX.Spec.Version.v1dot6);
    for (const name of Object.keys(IMAGES)) {
      const sbom = evidence(`${name}.sbom.cdx.json`).toString('utf8');
      expect(await validator.validate(sbom), name).toBeNull();
      const parsed = JSON.parse(sbom);
      expect(parsed.specVersion).toBe('1.6');
      expect(parsed.metadata.component.hashes[0].content).toBe(build.images[name]!.digest.slice(7));
      expect(parsed.metadata.timestamp).toBeUndefined();
    }
  });

  it("lists the image's own files with their SHA-256, its npm packages and its base by digest", () => {
    const sbom = JSON.parse(evidence('worker.sbom.cdx.json').toString('utf8'));
    const components = sbom.components as {
      type: string;
      name: string;
      group?: string;
      version?: string;
      purl?: string;
      hashes?: { content: string }[];
      licenses?: { license: { id?: string } }[];
    }[];
    const main = components.find((c) => c.type === 'file' && c.name === '/srv/worker/main.mjs');
    const sha = createHash('sha256')
      .update(readFileSync(join(repo.dir, 'worker/main.mjs')))
      .digest('hex');
    expect(main?.hashes?.[0]?.content).toBe(sha);
    const leftPad = components.find((c) => c.type === 'library' && c.name === 'left-pad');
    expect(leftPad).toMatchObject({ version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0' });
    expect(leftPad?.licenses?.[0]?.license.id).toBe('WTFPL');
    expect(components.find((c) => c.name === 'util')).toMatchObject({
      group: '@acme',
      version: '2.1.0',
      purl: 'pkg:npm/%40acme/util@2.1.0',
    });
    const record = JSON.parse(readFileSync(join(repo.dir, 'dist/release.json'), 'utf8'));
    const base = components.find((c) => c.type === 'container');
    expect(base?.hashes?.[0]?.content).toBe(record.artifacts.worker.build.base.digest.slice(7));
  });

  it("writes SLSA v1 provenance naming the source's commit, the base and the commit time", () => {
    const statement = JSON.parse(evidence('api.provenance.intoto.json').toString('utf8'));
    expect(statement.predicateType).toBe('https://slsa.dev/provenance/v1');
    expect(statement.subject).toEqual([
      { name: 'acme-api', digest: { sha256: build.images['api']!.digest.slice(7) } },
    ]);
    const { buildDefinition, runDetails } = statement.predicate;
    expect(buildDefinition.resolvedDependencies[0].digest).toEqual({ gitCommit: commit });
    expect(buildDefinition.externalParameters).toMatchObject({ artifact: 'api', version: RC });
    expect(runDetails.metadata.startedOn).toBe(runDetails.metadata.finishedOn);
    const commitTime = Number(repo.git('log', '-1', '--format=%ct'));
    expect(Date.parse(runDetails.metadata.startedOn) / 1000).toBe(commitTime);
  });

  it('attaches both, signed, as referrers the public key alone verifies (node:crypto)', async () => {
    for (const [name, repository] of Object.entries(IMAGES)) {
      const digest = build.images[name]!.digest;
      for (const [type, file] of [
        [SBOM_TYPE, `${name}.sbom.intoto.json`],
        [PROVENANCE_TYPE, `${name}.provenance.intoto.json`],
      ] as const) {
        const found = await referrersOf(store, repository, digest, type);
        expect(found, `${name} ${type}`).toHaveLength(1);
        const payload = verifyDsse(await bundleOf(store, repository, found[0]!.digest), publicKey());
        expect(payload, `${name} ${type} verifies`).toBeDefined();
        expect(payload!.equals(evidence(file))).toBe(true);
      }
    }
  });

  it('builds the same SBOM and provenance bytes again, and attaches nothing new', async () => {
    const before = Object.keys(IMAGES).flatMap((n) => [
      evidence(`${n}.sbom.cdx.json`),
      evidence(`${n}.provenance.intoto.json`),
      evidence(`${n}.sbom.intoto.json`),
    ]);
    const again = (await release(['build', '--engine', 'oci'])) as typeof build;
    expect(again.images).toEqual(build.images);
    const after = Object.keys(IMAGES).flatMap((n) => [
      evidence(`${n}.sbom.cdx.json`),
      evidence(`${n}.provenance.intoto.json`),
      evidence(`${n}.sbom.intoto.json`),
    ]);
    expect(after.map((b) => b.toString('base64'))).toEqual(before.map((b) => b.toString('base64')));
    for (const [name, repository] of Object.entries(IMAGES))
      expect(await referrersOf(store, repository, build.images[name]!.digest)).toHaveLength(2);
  });

  describe('promoted to rc, then released from it', () => {
    const RELEASE = 'v1.0.0';
    const SET_TYPE = 'https://service-release.dev/release-set/v1';
    let rcSet: Buffer;
    let releaseDigests: Record<string, string>;
    const set = () => readFileSync(join(repo.dir, 'dist/release-set.intoto.json'));

    beforeAll(async () => {
      await release(['promote', '--channel', 'rc']);
      rcSet = set();
      await release(['promote', '--channel', 'release', '--from', RC, '--version', RELEASE]);
      releaseDigests = {};
      for (const [name, repository] of Object.entries(IMAGES))
        releaseDigests[name] = (await store.resolve(repository, RELEASE))!.digest;
    }, 240_000);

    it('the rc set names every rc digest and the CLI archive the build made', () => {
      const statement = JSON.parse(rcSet.toString('utf8'));
      expect(statement.predicateType).toBe('https://service-release.dev/release-set/v1');
      expect(statement.predicate).toMatchObject({ version: RC, channel: 'rc', commit });
      const record = JSON.parse(readFileSync(join(repo.dir, 'dist/release.json'), 'utf8'));
      expect(statement.subject).toEqual(
        expect.arrayContaining([
          ...Object.entries(IMAGES).map(([name, repository]) => ({
            name: repository,
            digest: { sha256: build.images[name]!.digest.slice(7) },
          })),
          { name: 'acme-cli.tar.gz', digest: { sha256: record.artifacts.cli.sha256 } },
        ]),
      );
      expect(statement.subject).toHaveLength(4);
    });

    it('the release set is signed, attached to every release image and names its rc digests', async () => {
      const bytes = set();
      const statement = JSON.parse(bytes.toString('utf8'));
      expect(statement.predicate).toMatchObject({ version: RELEASE, channel: 'release' });
      for (const [name, repository] of Object.entries(IMAGES)) {
        expect(statement.predicate.artifacts[name]).toMatchObject({
          digest: releaseDigests[name],
          madeFrom: build.images[name]!.digest,
        });
        const found = await referrersOf(store, repository, releaseDigests[name]!, SET_TYPE);
        expect(found, name).toHaveLength(1);
        const payload = verifyDsse(await bundleOf(store, repository, found[0]!.digest), publicKey());
        expect(payload?.equals(bytes), name).toBe(true);
      }
      const bundle = readFileSync(join(repo.dir, 'dist/release-set.sigstore.json'));
      expect(verifyDsse(bundle, publicKey())?.equals(bytes)).toBe(true);
    });

    it("gives each release image the rc's SBOM and a provenance naming the rc digest", async () => {
      for (const [name, repository] of Object.entries(IMAGES)) {
        const [sbomRef] = await referrersOf(store, repository, releaseDigests[name]!, SBOM_TYPE);
        const sbom = JSON.parse(
          verifyDsse(await bundleOf(store, repository, sbomRef!.digest), publicKey())!.toString(),
        );
        expect(sbom.predicate).toEqual(JSON.parse(evidence(`${name}.sbom.cdx.json`).toString('utf8')));
        const [provRef] = await referrersOf(store, repository, releaseDigests[name]!, PROVENANCE_TYPE);
        const provenance = JSON.parse(
          verifyDsse(await bundleOf(store, repository, provRef!.digest), publicKey())!.toString(),
        );
        expect(provenance.subject[0].digest.sha256).toBe(releaseDigests[name]!.slice(7));
        expect(provenance.predicate.buildDefinition.externalParameters.version).toBe(RELEASE);
        expect(provenance.predicate.buildDefinition.resolvedDependencies).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ digest: { gitCommit: commit } }),
            expect.objectContaining({ digest: { sha256: build.images[name]!.digest.slice(7) } }),
          ]),
        );
      }
    });

    it('release sbom prints an image’s verified SBOM, as a summary or the document itself', async () => {
      const json = await release(['sbom', `acme-worker:${RC}`]);
      expect(json).toEqual(JSON.parse(evidence('worker.sbom.cdx.json').toString('utf8')));
      const text = await runRelease(['sbom', `acme-worker:${RELEASE}`], { cwd: repo.dir });
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain(`acme-worker@${releaseDigests['worker']}`);
      expect(text.stdout).toContain('left-pad@1.3.0  WTFPL');
      expect(text.stdout).toContain('@acme/util@2.1.0  MIT');
    });

    it('promoting the same release again adds nothing', async () => {
      const before = set();
      const counts = await Promise.all(
        Object.entries(IMAGES).map(
          async ([n, r]) => (await referrersOf(store, r, releaseDigests[n]!)).length,
        ),
      );
      await release(['promote', '--channel', 'release', '--from', RC, '--version', RELEASE]);
      expect(set().equals(before)).toBe(true);
      const after = await Promise.all(
        Object.entries(IMAGES).map(
          async ([n, r]) => (await referrersOf(store, r, releaseDigests[n]!)).length,
        ),
      );
      expect(after).toEqual(counts);
    });
  });

  it('writes no evidence with --dry-run', async () => {
    rmSync(join(repo.dir, 'dist/evidence'), { recursive: true, force: true });
    await release(['build', '--engine', 'oci', '--dry-run']);
    expect(existsSync(join(repo.dir, 'dist/evidence'))).toBe(false);
  });
});
