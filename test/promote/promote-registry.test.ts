import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';
import { type RegistryProxy, startProxy } from '../registry/proxy.ts';
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

// `release promote` as a subprocess against a real docker-registry with htpasswd auth, reached
// through a proxy that can fail a chosen request. Credentials come from a DOCKER_CONFIG.
const user = 'promoter';
const password = `pw-${randomBytes(12).toString('hex')}`;
const basic = Buffer.from(`${user}:${password}`).toString('base64');
let registry: RunningRegistry;
let proxy: RegistryProxy;
let dockerConfig: string;
const repos: GitRepo[] = [];
let namespace = 0;

beforeAll(async () => {
  registry = await startRegistry({ htpasswd: { user, password } });
  proxy = await startProxy(registry.host);
  dockerConfig = mkdtempSync(join(tmpdir(), 'sr-docker-config-'));
  writeFileSync(
    join(dockerConfig, 'config.json'),
    JSON.stringify({ auths: { [proxy.host]: { auth: basic }, [registry.host]: { auth: basic } } }),
  );
});
afterAll(async () => {
  for (const repo of repos) repo.remove();
  await proxy?.stop();
  await registry?.stop();
  rmSync(dockerConfig, { recursive: true, force: true });
});

/** A stamped project whose registry is a fresh namespace, and a direct (unproxied) store on it. */
async function project(tag: string) {
  const ns = `ns${++namespace}`;
  const repo = await stampedProject(tag, { registry: `${proxy.host}/${ns}` });
  repos.push(repo);
  const env = { DOCKER_CONFIG: dockerConfig };
  return { repo, env, store: new RegistryStore({ registry: `${registry.host}/${ns}`, env }) };
}

function expectNoSecrets(result: RunResult): void {
  for (const secret of [password, basic]) {
    expect(result.stdout).not.toContain(secret);
    expect(result.stderr).not.toContain(secret);
  }
}

describe('release promote (registry, basic auth)', { timeout: 120_000 }, () => {
  it('releases an rc by manifest copy with two requests per tag at most, readable by skopeo', async () => {
    const { repo, env, store } = await project('v3.0.0');
    const old = await pushRelease(store, ['v2.9.0', 'latest']);
    const rc = await pushRelease(store, ['v3.0.0-rc.2']);
    await signRelease(repo.dir, store, rc, REPOS); // a release --from an rc needs its signatures
    proxy.failNth(undefined);
    const result = await runRelease(
      ['promote', '--channel', 'release', '--from', 'v3.0.0-rc.2', '--version', 'v3.0.0', '--json'],
      { cwd: repo.dir, env },
    );
    expect(result.code, result.stderr).toBe(0);
    expectNoSecrets(result);
    const out = jsonOf<PromoteJson>(result);
    expect(out.result.written).toHaveLength(6);
    expect(out.plan.artifacts.find((a) => a.artifact === 'api')!.writes[1]).toMatchObject({
      reference: `${proxy.host}/ns1/service-api:latest`,
      from: old.api,
      to: rc.api,
    });
    expect(await digestsOf(store, 'v3.0.0')).toEqual(rc);
    expect(await digestsOf(store, 'latest')).toEqual(rc);
    // Writes: one PUT per tag, nothing else. No layer is touched: no pull, no push of layers. The
    // only blobs read are each image's config (a release reads it to see whether the image must be
    // re-stamped with its own version; these test images carry no version, so they are not) and
    // the payload of each rc image's cosign signature (sha256-<hex>.sig), checked before release.
    const writes = proxy.log.filter((l) => /^(PUT|POST|PATCH|DELETE) /.test(l));
    expect(writes).toHaveLength(6);
    const blobReads = proxy.log.filter((l) => l.includes('/blobs/'));
    expect(blobReads.every((l) => /^(GET|HEAD) /.test(l))).toBe(true);
    // One config and one signature payload per image.
    expect(new Set(blobReads.map((l) => l.replace(/^\w+ /, ''))).size).toBe(6);
    const sigReads = proxy.log.filter((l) => /\/manifests\/sha256-[0-9a-f]{64}\.sig$/.test(l));
    expect(new Set(sigReads.map((l) => l.replace(/^\w+ /, ''))).size).toBe(3);
    expect(writes.every((l) => /^PUT \/v2\/ns1\/service-[a-z]+\/manifests\/(v3\.0\.0|latest)$/.test(l))).toBe(
      true,
    );
    const inspected = execFileSync(
      'skopeo',
      [
        'inspect',
        '--tls-verify=false',
        '--creds',
        `${user}:${password}`,
        `docker://${registry.host}/ns1/service-web:latest`,
      ],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(inspected).Digest).toBe(rc.web);
  });

  it('keeps a multi-architecture index digest when promoting it', async () => {
    const { repo, env, store } = await project('v1.0.0');
    const built = await pushRelease(store, [], { multiArch: true });
    recordDigests(repo, built);
    const result = await runRelease(['promote', '--channel', 'release'], { cwd: repo.dir, env });
    expect(result.code, result.stderr).toBe(0);
    expect(await digestsOf(store, 'v1.0.0')).toEqual(built);
    expect(await digestsOf(store, 'latest')).toEqual(built);
    const raw = JSON.parse(
      execFileSync(
        'skopeo',
        [
          'inspect',
          '--raw',
          '--tls-verify=false',
          '--creds',
          `${user}:${password}`,
          `docker://${registry.host}/ns2/service-api:latest`,
        ],
        { encoding: 'utf8' },
      ),
    );
    expect(raw.mediaType).toBe('application/vnd.oci.image.index.v1+json');
    expect(raw.manifests.map((m: { platform: { architecture: string } }) => m.platform.architecture)).toEqual(
      ['amd64', 'arm64'],
    );
  });

  it('a failed latest write is repaired by the settle, and the run says so', async () => {
    const { repo, env, store } = await project('v5.0.0');
    const old = await pushRelease(store, ['v4.0.0', 'latest']);
    const built = await pushRelease(store, []);
    recordDigests(repo, built);
    // api and web get latest first (artifacts in name order); worker's latest PUT fails once.
    proxy.failFirst((method, url) => method === 'PUT' && url.endsWith('/service-worker/manifests/latest'));
    const human = await runRelease(['promote', '--channel', 'release'], { cwd: repo.dir, env });
    expect(human.code, human.stderr).toBe(0);
    expectNoSecrets(human);
    expect(human.stderr).toMatch(/warning: a write failed \(.*\); the settle completed the promotion/);
    expect(human.stdout).toContain('latest: v5.0.0 on every artifact');
    expect(human.stdout).toContain(
      `repaired ${proxy.host}/ns3/service-worker:latest: ${old.worker.slice(0, 19)} -> ${built.worker.slice(0, 19)} (v5.0.0)`,
    );
    expect(await digestsOf(store, 'latest')).toEqual(built);
    expect(await digestsOf(store, 'v5.0.0')).toEqual(built);
    expect(readRecord(repo).promotions).toHaveLength(1);
  });

  it('a registry that keeps refusing latest: exit 3, says latest may be split and where, a re-run repairs', async () => {
    const { repo, env, store } = await project('v5.1.0');
    const old = await pushRelease(store, ['v5.0.9', 'latest']);
    const built = await pushRelease(store, []);
    recordDigests(repo, built);
    proxy.failEvery((method, url) => method === 'PUT' && url.endsWith('/service-web/manifests/latest'));
    const json = await runRelease(['promote', '--channel', 'release', '--json'], { cwd: repo.dir, env });
    proxy.failNth(undefined);
    expect(json.code).toBe(3);
    expectNoSecrets(json);
    const error = jsonOf<PromoteJson>(json).error;
    expect(error).toMatchObject({ code: 'REGISTRY_ERROR', exitCode: 3, result: { status: 'failed' } });
    expect(error.result.undone).toEqual([]); // latest is settled forward, never put back
    expect(error.plan.artifacts).toHaveLength(3);
    const message = (error as unknown as { message: string }).message;
    expect(message).toContain(`promotion failed at ${proxy.host}/ns4/service-web:latest`);
    expect(message).toMatch(
      new RegExp(
        `latest may be split \\(.*\\): api ${built.api.slice(0, 19)}, web ${old.web.slice(0, 19)}, worker`,
      ),
    );
    expect((await digestsOf(store, 'latest')).web).toBe(old.web);
    expect(readRecord(repo).promotions).toBeUndefined();

    // Once the registry behaves, the same command (or any release promote) completes it.
    const done = await runRelease(['promote', '--channel', 'release'], { cwd: repo.dir, env });
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain('latest: v5.1.0 on every artifact');
    expect(await digestsOf(store, 'latest')).toEqual(built);
  });

  it('fails with exit 3 and no secret when the credentials are wrong', async () => {
    const { repo, store } = await project('v1.0.0');
    recordDigests(repo, await pushRelease(store, []));
    const wrongConfig = mkdtempSync(join(tmpdir(), 'sr-docker-config-'));
    const wrong = `wrong-${randomBytes(8).toString('hex')}`;
    writeFileSync(
      join(wrongConfig, 'config.json'),
      JSON.stringify({ auths: { [proxy.host]: { username: user, password: wrong } } }),
    );
    try {
      const result = await runRelease(['promote', '--channel', 'release', '--json'], {
        cwd: repo.dir,
        env: { DOCKER_CONFIG: wrongConfig },
      });
      expect(result.code).toBe(3);
      expect(jsonOf<PromoteJson>(result).error).toMatchObject({ code: 'REGISTRY_UNAUTHORIZED' });
      expect(result.stdout + result.stderr).not.toContain(wrong);
      expect(result.stderr).toContain(`docker login ${proxy.host}`);
    } finally {
      rmSync(wrongConfig, { recursive: true, force: true });
    }
    for (const a of ARTIFACTS) expect(await store.resolve(REPOS[a], 'latest')).toBeUndefined();
  });
});
