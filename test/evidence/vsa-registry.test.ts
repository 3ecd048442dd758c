import { createPrivateKey, sign } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listReferrers } from '../../src/registry/referrers.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { fixtureProject } from '../fixtures/fixture-project.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { type InProcessDeployment, startInProcessDeployment } from '../verify/in-process-deployments.ts';
import { bundleOf, referrersOf, verifyDsse } from './dsse.ts';

// fixtures/acme-oci built, signed and promoted to rc on a real docker-registry; a deployment of
// the reference servers at that rc in this process. `release verify --attest` signs SLSA VSAs with
// a verifier key of their own; they are checked here with node:crypto and the verifier's public
// key alone, then by `release verify --vsa` (file and registry), which refuses a summary for
// another digest, a FAILED one and a tampered one; then mirrored to an OCI archive and back.

const RC = 'v1.0.0-rc.1';
const PASSPHRASE = 'vsa-release-passphrase';
const VERIFIER_PASSPHRASE = 'vsa-verifier-passphrase';
const VSA_TYPE = 'https://slsa.dev/verification_summary/v1';
const VSA_PREDICATE = 'https://slsa.dev/verification_summary/v1';
const IMAGES = ['acme-api', 'acme-worker', 'acme-web', 'acme-scheduler'];

interface Statement {
  subject: { name: string; digest: { sha256: string } }[];
  predicateType: string;
  predicate: {
    verifier: { id: string; version: Record<string, string> };
    timeVerified: string;
    resourceUri: string;
    policy: {
      uri: string;
      digest: { sha256: string };
      annotations: { checks: string[]; releaseKey: string };
    };
    inputAttestations: { uri: string; digest: { sha256: string } }[];
    verificationResult: string;
    verifiedLevels: string[];
    slsaVersion: string;
  };
}

let registry: RunningRegistry;
let repo: GitRepo;
let store: RegistryStore;
let deployment: InProcessDeployment;
let drifting: InProcessDeployment;
let work: string;
const env = { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE, RELEASE_VERIFIER_PASSPHRASE: VERIFIER_PASSPHRASE };
const release = (args: string[]) => runRelease(args, { cwd: repo.dir, env, timeoutMs: 240_000 });
const verifierPub = () => readFileSync(join(repo.dir, 'vkeys/release-verifier.pub'), 'utf8');
const releasePub = () => readFileSync(join(repo.dir, 'keys/release-signing.pub'), 'utf8');
const attest = (target: InProcessDeployment, out: string, web = true) =>
  release([
    ...['verify', '--url', target.url, '--worker-url', target.workerUrl, '--no-cli'],
    ...(web ? ['--web-url', target.webUrl] : []),
    ...['--registry', '--attest', '--out', out, '--json'],
  ]);
const checkVsa = (vsa: string, ...extra: string[]) =>
  release(['verify', '--vsa', vsa, '--expect', RC, '--json', ...extra]);

/** Every image digest of the rc in `store` (the acme images are single-platform). */
async function rcDigests(from: RegistryStore): Promise<[string, string][]> {
  return Promise.all(IMAGES.map(async (r) => [r, (await from.resolve(r, RC))!.digest] as [string, string]));
}

/** A bundle's statement changed and signed again with the verifier's private key (node:crypto). */
function resigned(line: string, change: (s: Statement) => void, keep = false): string {
  const bundle = JSON.parse(line) as {
    dsseEnvelope: { payload: string; payloadType: string; signatures: { sig: string }[] };
  };
  const statement = JSON.parse(
    Buffer.from(bundle.dsseEnvelope.payload, 'base64').toString('utf8'),
  ) as Statement;
  change(statement);
  const body = Buffer.from(JSON.stringify(statement));
  bundle.dsseEnvelope.payload = body.toString('base64');
  if (!keep) {
    const type = bundle.dsseEnvelope.payloadType;
    const pae = Buffer.concat([Buffer.from(`DSSEv1 ${type.length} ${type} ${body.length} `), body]);
    const key = createPrivateKey({
      key: readFileSync(join(repo.dir, 'vkeys/release-verifier.key'), 'utf8'),
      passphrase: VERIFIER_PASSPHRASE,
    });
    bundle.dsseEnvelope.signatures[0]!.sig = sign('sha256', pae, key).toString('base64');
  }
  return JSON.stringify(bundle);
}

beforeAll(async () => {
  registry = await startRegistry({ deleteEnabled: true });
  repo = fixtureProject('acme-oci', { registry: `${registry.host}/acme` });
  const configPath = join(repo.dir, 'release.config.json');
  const config = JSON.parse(readFileSync(configPath, 'utf8'));
  config.artifacts.scheduler = { ...config.artifacts.worker, image: 'acme-scheduler' };
  config.verifier = { publicKey: 'vkeys/release-verifier.pub', privateKey: 'vkeys/release-verifier.key' };
  writeFileSync(configPath, JSON.stringify(config));
  repo.commit('acme');
  repo.tag(RC);
  for (const args of [
    ['keygen', '--out', 'keys'],
    ['keygen', '--verifier', '--out', 'vkeys'],
    ['stamp'],
    ['build', '--engine', 'oci', '--push'],
    ['promote', '--channel', 'rc'],
  ]) {
    const result = await release(args);
    expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
  }
  store = new RegistryStore({ registry: `${registry.host}/acme`, env: {} });
  work = mkdtempSync(join(tmpdir(), 'sr-vsa-'));
  writeFileSync(join(work, 'index.html'), '<!doctype html><title>web</title>');
  writeFileSync(join(work, 'version.json'), JSON.stringify({ version: RC }));
  deployment = await startInProcessDeployment({
    name: 'acme',
    apiVersion: RC,
    workerVersion: RC,
    webRoot: work,
  });
  drifting = await startInProcessDeployment({
    name: 'drift',
    apiVersion: RC,
    workerVersion: 'v0.9.0',
    webRoot: work,
  });
}, 300_000);

afterAll(async () => {
  await deployment?.close();
  await drifting?.close();
  repo?.remove();
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('release verify --attest', { timeout: 120_000 }, () => {
  it('attaches PASSED summaries that verify with node:crypto and the verifier public key alone', async () => {
    const run = await attest(deployment, join(work, 'vsa.jsonl'));
    expect(run.code, run.stderr).toBe(0);
    const { summaries } = jsonOf<{ summaries: { about: string; result: string }[] }>(run);
    expect(summaries.map((s) => s.about).sort()).toEqual([
      'api',
      'release-set',
      'scheduler',
      'web',
      'worker',
    ]);
    for (const [repository, digest] of await rcDigests(store)) {
      const vsas = await referrersOf(store, repository, digest, VSA_TYPE);
      // Its own summary and the release set's.
      expect(vsas, repository).toHaveLength(2);
      for (const referrer of vsas) {
        const bundle = await bundleOf(store, repository, referrer.digest);
        expect(verifyDsse(bundle, releasePub()), 'not the release key').toBeUndefined();
        const payload = verifyDsse(bundle, verifierPub());
        expect(payload, `${repository} ${referrer.digest}`).toBeDefined();
        const statement = JSON.parse(payload!.toString('utf8')) as Statement;
        expect(statement.predicateType).toBe(VSA_PREDICATE);
        expect(statement.subject).toContainEqual({ name: repository, digest: { sha256: digest.slice(7) } });
        expect(statement.predicate).toMatchObject({ verificationResult: 'PASSED', slsaVersion: '1.0' });
        // Built on this host, not by a hosted CI: provenance supports level 1, never more.
        expect(statement.predicate.verifiedLevels).toEqual(['SLSA_BUILD_LEVEL_1']);
        const checks = statement.predicate.policy.annotations.checks;
        expect(checks).toEqual(expect.arrayContaining(['signature', 'sbom', 'provenance', 'release-set']));
        // in-step only where the deployment showed the image: the scheduler (no engine read) and
        // so the release set are vouched for in the registry alone.
        const seen = !statement.predicate.resourceUri.match(/acme-scheduler|release-set/);
        expect(checks.includes('in-step'), statement.predicate.resourceUri).toBe(seen);
        expect(Date.now() - Date.parse(statement.predicate.timeVerified)).toBeLessThan(120_000);
        // Each input attestation is a referrer of the release's digests that is there to fetch.
        const inputs = statement.predicate.inputAttestations;
        expect(inputs.length).toBeGreaterThanOrEqual(3);
        for (const input of inputs) {
          const [, where, at] = /^oci:\/\/([^@]+)@(sha256:[0-9a-f]{64})$/.exec(input.uri)!;
          expect(at!.slice(7)).toBe(input.digest.sha256);
          expect(await store.getManifest(where!, at!), input.uri).toBeDefined();
        }
      }
    }
    // The file holds the same summaries, one Sigstore bundle per line.
    const lines = readFileSync(join(work, 'vsa.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(verifyDsse(line, verifierPub())).toBeDefined();
  });

  it('accepts them with --vsa, from the file and from the registry', async () => {
    const file = await checkVsa(join(work, 'vsa.jsonl'), '--require-check', 'sbom');
    expect(file.code, file.stdout + file.stderr).toBe(0);
    expect(jsonOf<{ accepted: boolean; uncovered: string[] }>(file)).toMatchObject({
      accepted: true,
      uncovered: [],
    });
    const fromRegistry = await checkVsa(`${registry.host}/acme`);
    expect(fromRegistry.code, fromRegistry.stdout + fromRegistry.stderr).toBe(0);
  });

  it('refuses a summary whose policy lacks a check the caller requires', async () => {
    const run = await checkVsa(join(work, 'vsa.jsonl'), '--require-check', 'rc-restamp');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('did not include the required check(s) rc-restamp');
  });

  it('refuses a summary for another digest, even signed by the verifier', async () => {
    const [first, ...rest] = readFileSync(join(work, 'vsa.jsonl'), 'utf8').trim().split('\n');
    const other = resigned(first!, (s) => {
      s.subject[0]!.digest.sha256 = 'ab'.repeat(32);
    });
    writeFileSync(join(work, 'other.jsonl'), [other, ...rest].join('\n'));
    const run = await checkVsa(join(work, 'other.jsonl'));
    expect(run.code).toBe(1);
    const report = jsonOf<{ summaries: { accepted: boolean; problems: string[] }[]; uncovered: string[] }>(
      run,
    );
    expect(report.summaries[0]!.problems.join()).toContain(
      `sha256:${'ab'.repeat(32)}, which is not in ${RC}`,
    );
    expect(report.summaries[0]!.accepted).toBe(false);
    // The release-set summary still covers that image: one bad summary refuses the lot anyway.
    expect(report.summaries.slice(1).every((v) => v.accepted)).toBe(true);
  });

  it('prints what a hostile summary says escaped, never as terminal control', async () => {
    const [first, ...rest] = readFileSync(join(work, 'vsa.jsonl'), 'utf8').trim().split('\n');
    const hostile = resigned(first!, (s) => {
      s.predicate.verificationResult = '\u001b[2J\u001b]0;owned\u0007';
    });
    writeFileSync(join(work, 'hostile.jsonl'), [hostile, ...rest].join('\n'));
    const run = await release(['verify', '--vsa', join(work, 'hostile.jsonl'), '--expect', RC]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('its verificationResult is');
    expect(run.stdout).not.toContain('\u001b');
    expect(run.stdout).not.toContain('\u0007');
  });

  it('refuses a tampered summary: the file and the registry', async () => {
    const [first, ...rest] = readFileSync(join(work, 'vsa.jsonl'), 'utf8').trim().split('\n');
    const tampered = resigned(first!, (s) => s.predicate.inputAttestations.pop(), true);
    writeFileSync(join(work, 'tampered.jsonl'), [tampered, ...rest].join('\n'));
    const run = await checkVsa(join(work, 'tampered.jsonl'));
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('the signature does not match its payload');
    // The same bundle attached next to the genuine one in the registry.
    const [repository, digest] = (await rcDigests(store))[0]!;
    const subject = (await store.resolve(repository, digest))!;
    const { attachArtifact } = await import('../../src/registry/referrers.ts');
    const forged = await attachArtifact(store, repository, subject, {
      artifactType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
      annotations: { 'dev.sigstore.bundle.predicateType': VSA_TYPE },
      layer: { mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json', bytes: Buffer.from(tampered) },
    });
    const refused = await checkVsa(`${registry.host}/acme`);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('the signature does not match its payload');
    // Removed by digest, still listed in the fallback index: read as gone, and a new attest works.
    await store.deleteTag(repository, forged.digest);
    const again = await checkVsa(`${registry.host}/acme`);
    expect(again.code, again.stdout).toBe(0);
    const reattested = await attest(deployment, join(work, 'again.jsonl'));
    expect(reattested.code, reattested.stderr).toBe(0);
  });

  it('signs a FAILED summary for a drifting deployment, attaches none, and --vsa refuses it', async () => {
    const before = await Promise.all(
      (await rcDigests(store)).map(async ([r, d]) => (await referrersOf(store, r, d, VSA_TYPE)).length),
    );
    const run = await attest(drifting, join(work, 'failed.jsonl'));
    expect(run.code).toBe(1);
    expect(jsonOf<{ summaries: { result: string; attached: unknown[] }[] }>(run).summaries).toEqual(
      expect.arrayContaining([expect.objectContaining({ result: 'FAILED', attached: [] })]),
    );
    const after = await Promise.all(
      (await rcDigests(store)).map(async ([r, d]) => (await referrersOf(store, r, d, VSA_TYPE)).length),
    );
    expect(after).toEqual(before);
    const line = readFileSync(join(work, 'failed.jsonl'), 'utf8').split('\n')[0]!;
    const statement = JSON.parse(verifyDsse(line, verifierPub())!.toString('utf8')) as Statement;
    expect(statement.predicate).toMatchObject({ verificationResult: 'FAILED', verifiedLevels: ['FAILED'] });
    const refused = await checkVsa(join(work, 'failed.jsonl'));
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('verificationResult is FAILED, not PASSED');
  });

  it('vouches for every image, in-step only for what it showed: no --web-url, web checked at its tag', async () => {
    const run = await attest(deployment, join(work, 'partial.jsonl'), false);
    expect(run.code, run.stderr).toBe(0);
    const json = jsonOf<{ summaries: { about: string }[]; warnings?: string[] }>(run);
    expect(json.summaries.map((s) => s.about).sort()).toEqual([
      'api',
      'release-set',
      'scheduler',
      'web',
      'worker',
    ]);
    expect(json.warnings ?? []).toEqual([]);
    const checks = readFileSync(join(work, 'partial.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(verifyDsse(line, verifierPub())!.toString('utf8')) as Statement)
      .map((s) => [
        s.predicate.resourceUri.replace(/@.*/, ''),
        s.predicate.policy.annotations.checks.includes('in-step'),
      ]);
    expect(checks.sort()).toEqual([
      [`oci://acme-api`, true],
      [`oci://acme-scheduler`, false],
      [`oci://acme-web`, false],
      [`oci://acme-worker`, true],
      [`urn:service-release:release-set:${RC}`, false],
    ]);
    expect((await checkVsa(join(work, 'partial.jsonl'))).code).toBe(0);
    // A gate that wants a deployment seen running the release refuses what none showed.
    const refused = await checkVsa(join(work, 'partial.jsonl'), '--require-check', 'in-step');
    expect(refused.code).toBe(1);
    const [web, scheduler] = await Promise.all(
      ['acme-web', 'acme-scheduler'].map(async (r) => `${r}@${(await store.resolve(r, RC))!.digest}`),
    );
    expect(jsonOf<{ uncovered: string[] }>(refused).uncovered.sort()).toEqual([scheduler, web]);
  });

  it('refuses --attest with the release key as the verifier key', async () => {
    const run = await runRelease(
      [
        ...['verify', '--url', deployment.url, '--worker-url', deployment.workerUrl, '--no-cli'],
        ...['--attest', '--verifier-key', 'keys/release-signing.key'],
      ],
      { cwd: repo.dir, env: { ...env, RELEASE_VERIFIER_PASSPHRASE: PASSPHRASE } },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('release-signing.key is the release key itself');
  });
});

describe('release mirror carries the summaries', { timeout: 120_000 }, () => {
  it('keeps them through an OCI archive and back, and they still verify', async () => {
    const tar = join(work, 'rc.tar');
    const out = await release(['mirror', '--version', RC, '--to', `oci-archive:${tar}`, '--json']);
    expect(out.code, out.stderr).toBe(0);
    const far = `${registry.host}/far`;
    const back = await release(['mirror', '--version', RC, '--from', `oci-archive:${tar}`, '--to', far]);
    expect(back.code, back.stderr).toBe(0);
    const farStore = new RegistryStore({ registry: far, env: {} });
    for (const [repository, digest] of await rcDigests(farStore)) {
      const vsas = await referrersOf(farStore, repository, digest, VSA_TYPE);
      expect(vsas.length, repository).toBeGreaterThanOrEqual(2);
      for (const v of vsas)
        expect(verifyDsse(await bundleOf(farStore, repository, v.digest), verifierPub())).toBeDefined();
    }
    // The far side checks one statement per image: from the archive itself, and from its registry.
    const fromArchive = await checkVsa(`oci-archive:${tar}`);
    expect(fromArchive.code, fromArchive.stdout + fromArchive.stderr).toBe(0);
    const fromFar = await checkVsa(far);
    expect(fromFar.code, fromFar.stdout + fromFar.stderr).toBe(0);
  });

  it('leaves them behind, with a warning, when the config has no verifier.publicKey', async () => {
    const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8'));
    delete config.verifier;
    writeFileSync(join(repo.dir, 'no-verifier.config.json'), JSON.stringify(config));
    const layout = `oci-layout:${join(work, 'no-verifier')}`;
    const run = await release([
      ...['mirror', '--config', 'no-verifier.config.json', '--version', RC, '--to', layout, '--json'],
    ]);
    expect(run.code, run.stderr).toBe(0);
    const json = jsonOf<{ warnings: string[]; manifests: { role: string }[] }>(run);
    expect(json.warnings.join()).toMatch(/verification summar(y|ies) left behind: set verifier.publicKey/);
    const { openStore } = await import('../../src/registry/open-store.ts');
    const target = openStore(layout, { cwd: repo.dir, env: {}, insecure: [] });
    for (const repository of IMAGES) {
      const digest = (await target.resolve(repository, RC))!.digest;
      expect(await referrersOf(target, repository, digest, VSA_TYPE)).toEqual([]);
      expect((await listReferrers(target, repository, digest)).length).toBeGreaterThan(0);
    }
  });

  it('refuses a source whose summary does not verify under verifier.publicKey', async () => {
    const [first] = readFileSync(join(work, 'vsa.jsonl'), 'utf8').trim().split('\n');
    const [repository, digest] = (await rcDigests(store))[1]!;
    const subject = (await store.resolve(repository, digest))!;
    const { attachArtifact } = await import('../../src/registry/referrers.ts');
    const forged = await attachArtifact(store, repository, subject, {
      artifactType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
      annotations: { 'dev.sigstore.bundle.predicateType': VSA_TYPE },
      layer: {
        mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
        bytes: Buffer.from(resigned(first!, (s) => (s.predicate.verificationResult = 'PASSED!'), true)),
      },
    });
    const run = await release(['mirror', '--version', RC, '--to', `oci-layout:${join(work, 'refused')}`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      /verification summary sha256:\S+ on acme-worker@\S+: the signature does not match/,
    );
    expect(readdirSync(work)).not.toContain('refused');
    await store.deleteTag(repository, forged.digest);
  });
});

describe('a release made from the rc', { timeout: 240_000 }, () => {
  const RELEASE = 'v1.0.0';
  let live: InProcessDeployment | undefined;
  afterAll(async () => live?.close());

  it('is attested with the rc-restamp check, the rc signatures among its inputs', async () => {
    repo.tag(RELEASE);
    const promoted = await release(['promote', '--channel', 'release', '--from', RC, '--version', RELEASE]);
    expect(promoted.code, promoted.stderr).toBe(0);
    const webRoot = join(work, 'release-web');
    mkdirSync(webRoot);
    writeFileSync(join(webRoot, 'index.html'), '<!doctype html><title>web</title>');
    writeFileSync(join(webRoot, 'version.json'), JSON.stringify({ version: RELEASE }));
    live = await startInProcessDeployment({
      name: 'rel',
      apiVersion: RELEASE,
      workerVersion: RELEASE,
      webRoot,
    });
    const out = join(work, 'release.jsonl');
    const run = await attest(live, out);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const rcApi = (await store.resolve('acme-api', RC))!.digest;
    const [rcSignature] = await referrersOf(store, 'acme-api', rcApi, 'https://sigstore.dev/cosign/sign/v1');
    const api = JSON.parse(
      verifyDsse(readFileSync(out, 'utf8').split('\n')[0]!, verifierPub())!.toString('utf8'),
    ) as Statement;
    expect(api.subject[0]!.name).toBe('acme-api');
    expect(api.predicate.policy.annotations.checks).toContain('rc-restamp');
    expect(api.predicate.inputAttestations.map((i) => i.uri)).toContain(
      `oci://acme-api@${rcSignature!.digest}`,
    );
    const checked = await release([
      ...['verify', '--vsa', out, '--expect', RELEASE, '--require-check', 'rc-restamp', '--json'],
    ]);
    expect(checked.code, checked.stdout).toBe(0);
    // The rc's summaries do not vouch for the release: other digests, another tag.
    const rcFile = await release(['verify', '--vsa', join(work, 'vsa.jsonl'), '--expect', RELEASE, '--json']);
    expect(rcFile.code).toBe(1);
    expect(rcFile.stdout).toContain(`it is about ${RC}, not ${RELEASE}`);
  });
});
