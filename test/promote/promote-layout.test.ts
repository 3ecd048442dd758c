import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LayoutStore } from '../../src/registry/layout-store.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { signRelease } from '../signing/sign-release.ts';
import {
  ARTIFACTS,
  digestsOf,
  type PromoteJson,
  pushRelease,
  REPOS,
  readRecord,
  recordDigests,
  stampedProject,
} from './project.ts';

// `release promote` end to end as a subprocess, on the embedded OCI layout store.
const cleanup: GitRepo[] = [];
afterAll(() => {
  for (const repo of cleanup) repo.remove();
});

async function project(tag: string) {
  const repo = await stampedProject(tag, { registry: 'oci-layout:.release/oci' });
  cleanup.push(repo);
  return { repo, store: new LayoutStore(join(repo.dir, '.release', 'oci')) };
}

const skopeoDigest = (dir: string, repo: string, tag: string) =>
  JSON.parse(
    execFileSync('skopeo', ['inspect', `oci:${join(dir, '.release', 'oci', repo)}:${tag}`], {
      encoding: 'utf8',
    }),
  ).Digest as string;

describe('release promote (OCI layout)', { timeout: 120_000 }, () => {
  it('rc: tags vX.Y.Z-rc.N for all three images from the build digests, never latest; records it', async () => {
    const { repo, store } = await project('v1.2.0-rc.1');
    const old = await pushRelease(store, ['v1.1.0', 'latest']);
    const built = await pushRelease(store, []);
    recordDigests(repo, built);

    // --no-sign: signing is covered by test/signing; here only the tags.
    const result = await runRelease(['promote', '--channel', 'rc', '--no-sign', '--json'], { cwd: repo.dir });
    expect(result.code, result.stderr).toBe(0);
    const out = jsonOf<PromoteJson>(result);
    expect(out).toMatchObject({
      dryRun: false,
      channel: 'rc',
      tag: 'v1.2.0-rc.1',
      result: { status: 'promoted' },
    });
    expect(out.plan.artifacts.flatMap((a) => a.writes.map((w) => w.reference.split('/').at(-1)))).toEqual([
      'service-api:v1.2.0-rc.1',
      'service-web:v1.2.0-rc.1',
      'service-worker:v1.2.0-rc.1',
    ]);
    expect(await digestsOf(store, 'v1.2.0-rc.1')).toEqual(built);
    expect(await digestsOf(store, 'latest')).toEqual(old);
    for (const a of ARTIFACTS) expect(skopeoDigest(repo.dir, REPOS[a], 'v1.2.0-rc.1')).toBe(built[a]);
    const [entry] = readRecord(repo).promotions;
    expect(entry).toMatchObject({ channel: 'rc', tag: 'v1.2.0-rc.1', from: null });
    expect(entry.artifacts.api.digest).toBe(built.api);
  });

  it('--from the rc releases exactly its digests as vX.Y.Z and latest; a re-run is a no-op', async () => {
    const { repo, store } = await project('v1.2.0');
    await pushRelease(store, ['v1.1.0', 'latest']);
    const rc = await pushRelease(store, ['v1.2.0-rc.3']);
    await signRelease(repo.dir, store, rc, REPOS); // a release --from an rc needs its signatures

    const args = ['promote', '--channel', 'release', '--from', 'v1.2.0-rc.3', '--version', 'v1.2.0'];
    const first = await runRelease(args, { cwd: repo.dir });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('promoted v1.2.0 to release: 6 tag(s) written');
    expect(await digestsOf(store, 'v1.2.0')).toEqual(rc);
    expect(await digestsOf(store, 'latest')).toEqual(rc);

    const again = await runRelease([...args, '--json'], { cwd: repo.dir });
    expect(again.code, again.stderr).toBe(0);
    const out = jsonOf<PromoteJson>(again);
    expect(out.plan.artifacts.every((a) => a.writes.length === 0)).toBe(true);
    expect(out.plan.artifacts[0]!.kept.map((k) => k.reason)).toEqual([
      expect.stringMatching(/^already at sha256:[0-9a-f]{12}: nothing to do$/),
      expect.stringMatching(/^already at/),
    ]);
    expect(readRecord(repo).promotions).toHaveLength(2);
  });

  it('--dry-run prints reference, old digest, new digest and reason, and writes nothing', async () => {
    const { repo, store } = await project('v1.3.0');
    const old = await pushRelease(store, ['v1.2.0', 'latest']);
    recordDigests(repo, await pushRelease(store, []));
    const index = () => ARTIFACTS.map((a) => readFileSync(join(store.root, REPOS[a], 'index.json'), 'utf8'));
    const before = { index: index(), record: readFileSync(join(repo.dir, 'dist', 'release.json'), 'utf8') };

    const result = await runRelease(['promote', '--channel', 'release', '--dry-run'], { cwd: repo.dir });
    expect(result.code, result.stderr).toBe(0);
    const line = result.stdout.split('\n').find((l) => l.includes('service-api:latest'))!;
    expect(line).toContain(
      `write oci-layout:${store.root}/service-api:latest  ${old.api.slice(0, 19)} -> sha256:`,
    );
    expect(line).toContain('v1.3.0 is the highest stable version present');
    expect(result.stdout).toMatch(
      /service-web:v1\.3\.0 {2}\(none\) -> sha256:[0-9a-f]{12} {2}new version tag v1\.3\.0/,
    );
    expect(result.stdout).toContain('dry run: 6 tag(s) would be written; nothing was written');
    expect(index()).toEqual(before.index);
    expect(readFileSync(join(repo.dir, 'dist', 'release.json'), 'utf8')).toBe(before.record);
  });

  it('a backport tags its version and says why latest stayed', async () => {
    const { repo, store } = await project('v1.4.9');
    const newest = await pushRelease(store, ['v2.0.0', 'latest']);
    const backport = await pushRelease(store, []);
    recordDigests(repo, backport);
    const result = await runRelease(['promote', '--channel', 'release'], { cwd: repo.dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('latest stays at v2.0.0: v1.4.9 is a backport');
    expect(await digestsOf(store, 'latest')).toEqual(newest);
    expect(await digestsOf(store, 'v1.4.9')).toEqual(backport);
  });

  it('refuses to move a version tag (exit 1) and writes nothing', async () => {
    const { repo, store } = await project('v1.5.0');
    const taken = await pushRelease(store, ['v1.5.0', 'latest']);
    recordDigests(repo, await pushRelease(store, []));
    const result = await runRelease(['promote', '--channel', 'release', '--json'], { cwd: repo.dir });
    expect(result.code).toBe(1);
    expect(jsonOf<PromoteJson>(result).error).toMatchObject({
      code: 'TAG_IMMUTABLE',
      hint: expect.stringContaining('--from v1.5.0'),
    });
    expect(result.stderr).toContain('version tags never move');
    expect(await digestsOf(store, 'v1.5.0')).toEqual(taken);
    expect(await digestsOf(store, 'latest')).toEqual(taken);
    expect(readRecord(repo).promotions).toBeUndefined();
  });

  it('refuses a version the channel does not take (exit 1), and asks for a build when there are no digests (exit 2)', async () => {
    const { repo } = await project('v1.6.0-rc.1');
    const wrong = await runRelease(['promote', '--channel', 'release'], { cwd: repo.dir });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/cannot promote to the release channel: "v1.6.0-rc.1" is a rc version/);
    const unbuilt = await runRelease(['promote', '--channel', 'rc'], { cwd: repo.dir });
    expect(unbuilt.code).toBe(2);
    expect(unbuilt.stderr).toContain('has no image digest for api, worker, web');
    expect(unbuilt.stderr).toContain('run `release build` first');
    const missing = await runRelease(['promote', '--channel', 'rc', '--from', 'v0.0.1'], { cwd: repo.dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/service-api has no tag v0\.0\.1/);
  });

  it('dev: dev and sha-<12 hex> of the build commit', async () => {
    const { repo, store } = await project('v1.7.0');
    const built = await pushRelease(store, []);
    recordDigests(repo, built);
    const result = await runRelease(['promote', '--channel', 'dev', '--json'], { cwd: repo.dir });
    expect(result.code, result.stderr).toBe(0);
    const sha = `sha-${repo.head().slice(0, 12)}`;
    expect(await digestsOf(store, 'dev')).toEqual(built);
    expect(await digestsOf(store, sha)).toEqual(built);
    expect(await digestsOf(store, 'latest')).toEqual({ api: null, worker: null, web: null });
  });
});
