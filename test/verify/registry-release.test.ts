import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { verifyDsse } from '../evidence/dsse.ts';
import { fixtureProject } from '../fixtures/fixture-project.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// A release verified in the registry alone, before anything runs it: fixtures/acme-oci (with a
// scheduler run from the worker's image: one image, two roles) built, signed, promoted to rc and
// released from the rc on a real docker-registry. `release verify --registry --expect` reads no
// deployment; `--attest` then vouches for every image and the release set, without in-step.

const RC = 'v1.0.0-rc.1';
const RELEASE = 'v1.0.0';
const env = { RELEASE_SIGNING_PASSPHRASE: 'reg-release', RELEASE_VERIFIER_PASSPHRASE: 'reg-verifier' };

interface Report {
  mode: string;
  inStep: boolean;
  exitCode: number;
  artifacts: { name: string; version: string | null; status: string; detail?: string }[];
  findings: { code: string; severity: string; artifact?: string }[];
  signatures: { repository: string; status: string }[];
  evidence: { repository: string; sbom: { status: string }; releaseSet?: { version: string } }[];
  provenance?: { repository: string; restampMatches?: boolean }[];
  summaries?: { about: string; roles?: string[]; result: string; attached: unknown[] }[];
}

let registry: RunningRegistry;
let repo: GitRepo;
let work: string;
const release = (args: string[]) => runRelease(args, { cwd: repo.dir, env, timeoutMs: 240_000 });
const verify = (...args: string[]) => release(['verify', '--registry', '--json', ...args]);

beforeAll(async () => {
  registry = await startRegistry();
  repo = fixtureProject('acme-oci', { registry: `${registry.host}/acme` });
  const configPath = join(repo.dir, 'release.config.json');
  const config = JSON.parse(readFileSync(configPath, 'utf8'));
  config.artifacts.scheduler = { role: 'worker', image: 'acme-worker', command: ['node', 'cron.mjs'] };
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
    ['promote', '--channel', 'release', '--from', RC, '--version', RELEASE],
  ]) {
    const result = await release(args);
    expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
  }
  work = mkdtempSync(join(tmpdir(), 'sr-registry-release-'));
}, 400_000);

afterAll(async () => {
  repo?.remove();
  await registry?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('release verify --registry --expect, no deployment', { timeout: 180_000 }, () => {
  it('passes a release from its rc with signatures and attestations required: one row per image', async () => {
    const run = await verify('--require-signature', '--require-attestations', '--expect', RELEASE);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = jsonOf<Report>(run);
    expect(report).toMatchObject({ mode: 'registry', inStep: true, exitCode: 0 });
    // The scheduler runs the worker's image: one image, read and signed once, its role named.
    expect(report.artifacts.map((a) => [a.name, a.version, a.status])).toEqual([
      ['api', RELEASE, 'ok'],
      ['worker', RELEASE, 'ok'],
      ['web', RELEASE, 'ok'],
    ]);
    expect(report.artifacts[1]!.detail).toBe('also run as scheduler');
    expect(report.signatures.map((s) => [s.repository, s.status])).toEqual([
      ['acme-api', 'valid'],
      ['acme-worker', 'valid'],
      ['acme-web', 'valid'],
    ]);
    expect(report.evidence.every((e) => e.sbom.status === 'valid' && e.releaseSet?.version === RELEASE)).toBe(
      true,
    );
    expect(report.provenance?.map((p) => [p.repository, p.restampMatches])).toEqual([
      ['acme-api', true],
      ['acme-worker', true],
      ['acme-web', true],
    ]);
    expect(report.findings.filter((f) => f.severity !== 'notice')).toEqual([]);
    // The rc verifies the same way (no rc of its own to be traced to).
    const rc = await verify('--require-signature', '--require-attestations', '--expect', RC);
    expect(rc.code, rc.stdout + rc.stderr).toBe(0);
  });

  it('--attest signs a summary for every image and the release set that --vsa accepts, never in-step', async () => {
    const out = join(work, 'vsa.jsonl');
    const run = await verify('--attest', '--out', out, '--expect', RELEASE);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const summaries = jsonOf<Report>(run).summaries!;
    // One summary per image, the roles that run it named.
    expect(summaries.map((s) => [s.about, s.roles ?? null, s.result])).toEqual([
      ['api', null, 'PASSED'],
      ['worker', ['worker', 'scheduler'], 'PASSED'],
      ['web', null, 'PASSED'],
      ['release-set', null, 'PASSED'],
    ]);
    // Attached to each image (its own and the set's): the worker's image once, for both roles.
    expect(summaries.map((s) => s.attached.length)).toEqual([1, 1, 1, 3]);
    const pub = readFileSync(join(repo.dir, 'vkeys/release-verifier.pub'), 'utf8');
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    for (const line of lines) {
      const statement = JSON.parse(verifyDsse(line, pub)!.toString('utf8')) as {
        predicate: { policy: { annotations: { checks: string[]; version: string } } };
      };
      expect([...statement.predicate.policy.annotations.checks].sort()).toEqual([
        'provenance',
        'rc-restamp',
        'release-set',
        'sbom',
        'signature',
      ]);
    }
    const check = (vsa: string, ...extra: string[]) =>
      release(['verify', '--vsa', vsa, '--expect', RELEASE, '--json', ...extra]);
    for (const vsa of [out, `${registry.host}/acme`]) {
      const accepted = await check(vsa, '--require-check', 'rc-restamp');
      expect(accepted.code, accepted.stdout + accepted.stderr).toBe(0);
      expect(jsonOf<{ accepted: boolean; uncovered: string[] }>(accepted)).toMatchObject({
        accepted: true,
        uncovered: [],
      });
    }
    // A gate that wants a deployment seen running the release does not take these.
    expect((await check(out, '--require-check', 'in-step')).code).toBe(1);
  });

  it('refuses a tag pushed over with another build, and a release that is not whole', async () => {
    const store = new RegistryStore({ registry: `${registry.host}/acme`, env: {} });
    const released = (await store.getManifest('acme-web', RELEASE))!;
    const rc = (await store.getManifest('acme-web', RC))!;
    await store.putManifest('acme-web', RELEASE, rc.bytes, rc.descriptor.mediaType);
    try {
      const run = await verify('--require-signature', '--expect', RELEASE);
      expect(run.code, run.stdout + run.stderr).toBe(1);
      const report = jsonOf<Report>(run);
      expect(report.artifacts.find((a) => a.name === 'web')).toMatchObject({ version: RC, status: 'drift' });
      expect(report.findings.map((f) => f.code)).toEqual(
        expect.arrayContaining(['IMAGE_VERSION_MISMATCH', 'RELEASE_SET_MISMATCH']),
      );
    } finally {
      await store.putManifest('acme-web', RELEASE, released.bytes, released.descriptor.mediaType);
    }
    const missing = await verify('--expect', 'v1.0.1');
    expect(missing.code).toBe(1);
    expect(jsonOf<Report>(missing).findings.filter((f) => f.code === 'REGISTRY_TAG_MISSING')).toHaveLength(3);
  });

  it('wants --expect, and no deployment flag beside it', async () => {
    const noExpect = await release(['verify', '--registry']);
    expect(noExpect.code).toBe(2);
    expect(noExpect.stderr).toContain('needs --expect <tag>');
    const noStore = await release(['verify', '--expect', RELEASE]);
    expect(noStore.code).toBe(2);
    expect(noStore.stderr).toContain('--registry --expect');
  });
});
