import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { fixtureProject } from '../fixtures/fixture-project.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { makeImage, pushImage } from '../helpers/make-image.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { ARTIFACTS, pushRelease, REPOS, recordDigests, stampedProject } from '../promote/project.ts';
import { type InProcessDeployment, startInProcessDeployment } from '../verify/in-process-deployments.ts';
import { bundleOf, referrersOf, verifyDsse } from './dsse.ts';

// One real docker-registry for both parts: a two-platform rc (make-image indexes) whose release
// set must name every digest and the CLI archive; and fixtures/acme-oci built and promoted into
// it, then checked by `release verify --registry` against a deployment in this process.

const PASSPHRASE = 'evidence-registry-passphrase';
const SET_TYPE = 'https://service-release.dev/release-set/v1';
const SBOM_TYPE = 'https://cyclonedx.org/bom';

let registry: RunningRegistry;
const repos: GitRepo[] = [];
beforeAll(async () => {
  registry = await startRegistry({ deleteEnabled: true });
}, 60_000);
afterAll(async () => {
  for (const repo of repos) repo.remove();
  await registry?.stop();
});

describe('release promote --channel rc of a two-platform release', () => {
  const RC = 'v2.0.0-rc.1';
  let repo: GitRepo;
  let store: RegistryStore;
  let built: Record<string, string>;
  const ARCHIVE_SHA = 'ab'.repeat(32);

  beforeAll(async () => {
    repo = await stampedProject(RC, { registry: `${registry.host}/multi` });
    repos.push(repo);
    await writeKeyPair(join(repo.dir, 'keys'), { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE });
    const configPath = join(repo.dir, 'release.config.json');
    const config = JSON.parse(readFileSync(configPath, 'utf8'));
    config.signing = { publicKey: 'keys/release-signing.pub', privateKey: 'keys/release-signing.key' };
    writeFileSync(configPath, JSON.stringify(config));
    store = new RegistryStore({ registry: `${registry.host}/multi`, env: {} });
    built = await pushRelease(store, [], { multiArch: true });
    recordDigests(repo, built as Parameters<typeof recordDigests>[1]);
    // What the build leaves for the CLI: its archive and SHA-256 (these images carry none).
    const recordPath = join(repo.dir, 'dist/release.json');
    const record = JSON.parse(readFileSync(recordPath, 'utf8'));
    record.artifacts.cli.archive = 'dist/service-cli.tar.gz';
    record.artifacts.cli.sha256 = ARCHIVE_SHA;
    writeFileSync(recordPath, JSON.stringify(record));
    const result = await runRelease(['promote', '--channel', 'rc', '--json'], {
      cwd: repo.dir,
      env: { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE },
    });
    expect(result.code, result.stderr).toBe(0);
  }, 120_000);

  it('names every index and child digest and the CLI archive, signed, on every manifest', async () => {
    const bytes = readFileSync(join(repo.dir, 'dist/release-set.intoto.json'));
    const statement = JSON.parse(bytes.toString('utf8'));
    const expected: { name: string; digest: { sha256: string } }[] = [];
    const manifests: [string, string][] = [];
    for (const a of ARTIFACTS) {
      const index = JSON.parse(
        Buffer.from((await store.getManifest(REPOS[a], built[a]!))!.bytes).toString('utf8'),
      ) as { manifests: { digest: string }[] };
      expect(index.manifests).toHaveLength(2);
      for (const digest of [built[a]!, ...index.manifests.map((m) => m.digest)]) {
        expected.push({ name: REPOS[a], digest: { sha256: digest.slice(7) } });
        manifests.push([REPOS[a], digest]);
      }
    }
    expected.push({ name: 'service-cli.tar.gz', digest: { sha256: ARCHIVE_SHA } });
    expect(statement.subject).toHaveLength(expected.length);
    expect(statement.subject).toEqual(expect.arrayContaining(expected));
    expect(statement.predicate).toMatchObject({ version: RC, channel: 'rc' });
    const publicKey = readFileSync(join(repo.dir, 'keys/release-signing.pub'), 'utf8');
    for (const [repository, digest] of manifests) {
      const [found] = await referrersOf(store, repository, digest, SET_TYPE);
      expect(found, `${repository}@${digest}`).toBeDefined();
      expect(verifyDsse(await bundleOf(store, repository, found!.digest), publicKey)?.equals(bytes)).toBe(
        true,
      );
    }
  });
});

describe('release verify --registry reads the evidence of fixtures/acme-oci', () => {
  const RC = 'v1.0.0-rc.1';
  const IMAGES = {
    api: 'acme-api',
    worker: 'acme-worker',
    web: 'acme-web',
    scheduler: 'acme-scheduler',
  } as const;
  let repo: GitRepo;
  let store: RegistryStore;
  let deployment: InProcessDeployment;
  let webRoot: string;
  const release = async (args: string[]) =>
    runRelease(args, { cwd: repo.dir, env: { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE }, timeoutMs: 240_000 });
  const verify = async (extra: string[] = []) => {
    const result = await release([
      'verify',
      '--url',
      deployment.url,
      '--worker-url',
      deployment.workerUrl,
      '--no-cli',
      '--registry',
      '--json',
      ...extra,
    ]);
    return {
      code: result.code,
      stderr: result.stderr,
      report: jsonOf<{
        findings: { code: string; severity: string; artifact?: string }[];
        evidence?: {
          artifact: string;
          sbom: { status: string };
          provenance: { status: string };
          releaseSet?: object;
        }[];
      }>(result),
    };
  };

  beforeAll(async () => {
    repo = fixtureProject('acme-oci', { registry: `${registry.host}/acme` });
    repos.push(repo);
    // An extra image (no role), released in step with the rest: a scheduler on the worker's files.
    const configPath = join(repo.dir, 'release.config.json');
    const config = JSON.parse(readFileSync(configPath, 'utf8'));
    config.artifacts.scheduler = { ...config.artifacts.worker, image: IMAGES.scheduler };
    writeFileSync(configPath, JSON.stringify(config));
    repo.commit('acme');
    repo.tag(RC);
    for (const args of [
      ['keygen', '--out', 'keys'],
      ['stamp'],
      ['build', '--engine', 'oci', '--push'],
      ['promote', '--channel', 'rc'],
    ]) {
      const result = await release(args);
      expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
    }
    store = new RegistryStore({ registry: `${registry.host}/acme`, env: {} });
    webRoot = mkdtempSync(join(tmpdir(), 'sr-evidence-web-'));
    deployment = await startInProcessDeployment({ name: 'acme', apiVersion: RC, workerVersion: RC, webRoot });
  }, 300_000);
  afterAll(async () => {
    await deployment?.close();
    if (webRoot) rmSync(webRoot, { recursive: true, force: true });
  });

  const evidenceCodes = (findings: { code: string }[]) =>
    findings.map((f) => f.code).filter((c) => /^(EVIDENCE|RELEASE_SET)_/.test(c));

  it('finds every deployed image attested and in the release set', async () => {
    const { code, report, stderr } = await verify(['--require-attestations']);
    expect(evidenceCodes(report.findings), stderr).toEqual([]);
    expect(code, JSON.stringify(report.findings)).toBe(0);
    expect(report.evidence?.map((e) => e.artifact)).toEqual(
      expect.arrayContaining(['api', 'worker', 'scheduler']),
    );
    for (const e of report.evidence ?? []) {
      expect(e).toMatchObject({ sbom: { status: 'valid' }, provenance: { status: 'valid' } });
      expect(e.releaseSet).toBeDefined();
    }
  });

  it('reports an image whose SBOM was removed from the registry as missing evidence', async () => {
    const digest = (await store.resolve(IMAGES.api, RC))!.digest;
    const [sbom] = await referrersOf(store, IMAGES.api, digest, SBOM_TYPE);
    await store.deleteTag(IMAGES.api, sbom!.digest);
    const shown = await verify();
    expect(shown.report.findings).toContainEqual(
      expect.objectContaining({ code: 'EVIDENCE_MISSING', artifact: 'api', severity: 'notice' }),
    );
    expect(shown.code).toBe(0);
    const required = await verify(['--require-attestations']);
    expect(required.report.findings).toContainEqual(
      expect.objectContaining({ code: 'EVIDENCE_MISSING', artifact: 'api', severity: 'drift' }),
    );
    expect(required.code).toBe(1);
  });

  it('checks an extra image like the rest: its SBOM removed is missing evidence, named after it', async () => {
    const digest = (await store.resolve(IMAGES.scheduler, RC))!.digest;
    const [sbom] = await referrersOf(store, IMAGES.scheduler, digest, SBOM_TYPE);
    await store.deleteTag(IMAGES.scheduler, sbom!.digest);
    const required = await verify(['--require-attestations']);
    expect(required.report.findings).toContainEqual(
      expect.objectContaining({ code: 'EVIDENCE_MISSING', artifact: 'scheduler', severity: 'drift' }),
    );
    expect(required.code).toBe(1);
  });

  it("reports a worker that is not the release set's digest as drift", async () => {
    // Someone pushes other bytes over the worker's rc tag: the deployment now runs an image the
    // release set does not name.
    await pushImage(store, IMAGES.worker, makeImage(), RC);
    const { code, report } = await verify();
    expect(report.findings).toContainEqual(
      expect.objectContaining({ code: 'RELEASE_SET_MISMATCH', artifact: 'worker', severity: 'drift' }),
    );
    expect(code).toBe(1);
  });
});
