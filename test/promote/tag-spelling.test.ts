import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OciImageConfig } from '../../src/oci-image/image-config.ts';
import { LayoutStore } from '../../src/registry/layout-store.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import type { ImageStore } from '../../src/registry/store.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { fixtureProject } from '../fixtures/fixture-project.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';

// Tags as the project writes them (DESIGN.md "Channels and tags"). fixtures/one-image (one app
// image run as api, worker and scheduler, and a web image) through the real commands: dev, a
// signed rc and the release made from it, built daemonlessly. A CalVer project without `v`
// (`2026.7.0-rc.1`, `2026.7.0`) on a docker-registry and on an OCI layout, and a `v` project on
// the registry: images, channel tags, the record, bump and verify keep the project's spelling,
// and every look-up (`--from`, `--version`, `--expect`) takes either spelling and names the tag
// that exists.

const PASSPHRASE = 'correct horse battery staple';
const env = { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE };

interface Spelling {
  name: string;
  previous: string;
  rc: string;
  release: string;
}
const CALVER: Spelling = {
  name: 'CalVer without v',
  previous: '2026.6.0',
  rc: '2026.7.0-rc.1',
  release: '2026.7.0',
};
const V: Spelling = { name: 'a v project', previous: 'v1.2.0', rc: 'v1.3.0-rc.1', release: 'v1.3.0' };
const other = (tag: string) => (tag.startsWith('v') ? tag.slice(1) : `v${tag}`);

interface Flow {
  repo: GitRepo;
  store: ImageStore;
  release: (args: string[]) => ReturnType<typeof runRelease>;
  ok: (args: string[]) => Promise<Record<string, unknown>>;
  missing: { code: number; error: { code: string; message: string; hint: string } };
  fromOther: Record<string, unknown>;
  fromOtherWarnings: string;
  again: Record<string, unknown>;
}

/** dev -> rc (signed) -> a missing rc refused -> release from the rc named in its other spelling. */
async function releaseFlow(spelling: Spelling, registry: string | undefined): Promise<Flow> {
  const repo = fixtureProject('one-image', registry ? { registry: `${registry}/acme` } : {});
  await writeKeyPair(join(repo.dir, 'keys'), env);
  repo.write('.gitignore', 'dist/\n.release/\nnode_modules/\napp/dist/\nweb/dist/\n');
  repo.commit('acme');
  repo.annotatedTag(spelling.previous);
  repo.commit('after the previous release');
  const release = (args: string[]) =>
    runRelease([...args, '--json'], { cwd: repo.dir, env, timeoutMs: 240_000 });
  const ok = async (args: string[]) => {
    const run = await release(args);
    expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
    return jsonOf<Record<string, unknown>>(run);
  };
  await ok(['stamp']);
  await ok(['build', '--engine', 'oci', '--push']);
  await ok(['promote', '--channel', 'dev']);
  repo.commit('the release candidate');
  repo.annotatedTag(spelling.rc);
  await ok(['stamp']);
  await ok(['build', '--engine', 'oci', '--push']);
  await ok(['promote', '--channel', 'rc']);
  repo.annotatedTag(spelling.release);
  await ok(['stamp']);
  const missingRun = await release(['promote', '--channel', 'release', '--from', `${spelling.release}-rc.9`]);
  const run = await release(['promote', '--channel', 'release', '--from', other(spelling.rc)]);
  expect(run.code, run.stderr).toBe(0);
  const again = await ok(['promote', '--channel', 'release', '--from', spelling.rc]);
  const store = registry
    ? new RegistryStore({ registry, env: {} })
    : new LayoutStore(join(repo.dir, '.release/oci'), () => {});
  return {
    repo,
    store,
    release,
    ok,
    missing: { ...jsonOf(missingRun), code: missingRun.code } as Flow['missing'],
    fromOther: jsonOf(run),
    fromOtherWarnings: run.stderr,
    again,
  };
}

let registry: RunningRegistry;
const flows: Record<string, Flow> = {};
const started: StartedProcess[] = [];

beforeAll(async () => {
  registry = await startRegistry();
  const [calver, layout, v] = await Promise.all([
    releaseFlow(CALVER, registry.host),
    releaseFlow(CALVER, undefined),
    releaseFlow(V, registry.host),
  ]);
  Object.assign(flows, { calver, layout, v });
}, 900_000);

afterAll(async () => {
  for (const p of started) await p.stop();
  await registry?.stop();
  for (const flow of Object.values(flows)) flow.repo.remove();
});

async function envOf(store: ImageStore, repository: string, tag: string): Promise<Record<string, string>> {
  const manifest = await store.getManifest(repository, tag);
  const json = JSON.parse(Buffer.from(manifest!.bytes).toString('utf8')) as { config: { digest: string } };
  const config = JSON.parse(
    Buffer.from(await store.getBlob(repository, json.config.digest)).toString('utf8'),
  ) as OciImageConfig;
  return Object.fromEntries(config.config!.Env!.map((l) => l.split('=', 2) as [string, string]));
}

const cases = [
  ['CalVer on a registry', 'calver', CALVER],
  ['CalVer on an OCI layout', 'layout', CALVER],
  ['a v project on a registry', 'v', V],
] as const;

describe.each(cases)('tags as the project writes them: %s', { timeout: 240_000 }, (_name, key, spelling) => {
  const repoOf = (_flow: Flow, image: string) => (key === 'layout' ? image : `acme/${image}`);

  it('channel tags carry the spelling of the git tags, never the other one', async () => {
    const flow = flows[key]!;
    for (const image of ['acme-app', 'acme-web']) {
      const tags = await flow.store.listTags(repoOf(flow, image));
      expect(tags).toEqual(expect.arrayContaining([spelling.rc, spelling.release, 'latest', 'dev']));
      expect(tags).not.toContain(other(spelling.rc));
      expect(tags).not.toContain(other(spelling.release));
    }
    expect(await envOf(flow.store, repoOf(flow, 'acme-app'), spelling.release)).toMatchObject({
      SERVICE_VERSION: spelling.release,
      ACME_VERSION: spelling.release,
    });
    const record = JSON.parse(readFileSync(join(flow.repo.dir, 'dist/release.json'), 'utf8'));
    expect(record.tag).toBe(spelling.release);
    expect(record.promotions.at(-1)).toMatchObject({ tag: spelling.release, from: spelling.rc });
  });

  it('--from in the other spelling finds the rc and says which tag it used', () => {
    const flow = flows[key]!;
    expect(flow.fromOther).toMatchObject({ tag: spelling.release, from: spelling.rc });
    expect(flow.fromOther['warnings']).toEqual(
      expect.arrayContaining([expect.stringContaining(`--from ${other(spelling.rc)}: no such tag`)]),
    );
    expect(flow.fromOtherWarnings).toContain(`using ${spelling.rc}`);
    // The exact spelling works too, and changes nothing the first run wrote.
    expect(flow.again).toMatchObject({ tag: spelling.release, from: spelling.rc });
    expect(
      (flow.again['plan'] as { artifacts: { writes: unknown[] }[] }).artifacts.flatMap((a) => a.writes),
    ).toEqual([]);
  });

  it('a missing rc is refused, naming the rcs that exist', () => {
    const flow = flows[key]!;
    expect(flow.missing.code).toBe(2);
    expect(flow.missing.error.code).toBe('SOURCE_MISSING');
    expect(flow.missing.error.message).toContain(`${spelling.release}-rc.9`);
    expect(flow.missing.error.hint).toContain(spelling.rc);
  });
});

describe('a CalVer release deployed: bump and verify in its spelling', { timeout: 240_000 }, () => {
  it('bump writes :2026.7.0 (from the record, and from --version v2026.7.0)', async () => {
    const flow = flows['calver']!;
    const image = (name: string, tag: string) => `${registry.host}/acme/${name}:${tag}`;
    const compose = (tag: string) =>
      [
        'services:',
        '  api:',
        `    image: ${image('acme-app', tag)}`,
        '    command: ["api"]',
        '  worker:',
        `    image: ${image('acme-app', tag)}`,
        '    command: ["worker"]',
        '  scheduler:',
        `    image: ${image('acme-app', tag)}`,
        '    command: ["scheduler"]',
        '  web:',
        `    image: ${image('acme-web', tag)}`,
        '',
      ].join('\n');
    mkdirSync(join(flow.repo.dir, 'deploy'), { recursive: true });
    for (const version of [[], ['--version', 'v2026.7.0']]) {
      flow.repo.write('deploy/compose.yml', compose('2026.6.0'));
      await flow.ok(['bump', '--manifests', 'deploy', ...version]);
      const written = readFileSync(join(flow.repo.dir, 'deploy/compose.yml'), 'utf8');
      expect(written).toBe(compose('2026.7.0'));
      expect(written).not.toContain('v2026.7.0');
    }
    for (const expect_ of ['2026.7.0', 'v2026.7.0']) {
      const verify = await flow.release(['verify', '--manifests', 'deploy', '--expect', expect_]);
      expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    }
  });

  it('verify --registry --expect 2026.7.0 and v2026.7.0 are both in step on the released app', async () => {
    const flow = flows['calver']!;
    // The api as its container runs it: the app the image holds, with the release image's env.
    const imageEnv = await envOf(flow.store, 'acme/acme-app', '2026.7.0');
    const api = await startProcess(join(flow.repo.dir, 'app/dist/main.mjs'), {
      args: ['api'],
      env: { ACME_VERSION: imageEnv['ACME_VERSION'], PORT: '0' },
      readyPattern: /listening on (http:\/\/127\.0\.0\.1:\d+)/,
    });
    started.push(api);
    const url = api.url.replace(/\/api\/version$/, '');
    for (const expected of ['2026.7.0', 'v2026.7.0']) {
      const run = await flow.release([
        'verify',
        '--url',
        url,
        '--registry',
        '--expect',
        expected,
        '--no-cli',
      ]);
      const out = jsonOf<{
        inStep: boolean;
        provenance: { tag: string; releaseSignature: string }[];
        signatures: { of: string; status: string }[];
        evidence: { of: string }[];
      }>(run);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(out.inStep).toBe(true);
      // Every store reading was of the tag that exists, whichever spelling --expect used.
      expect(out.provenance.map((p) => [p.tag, p.releaseSignature])).toEqual([
        ['2026.7.0', 'bound'],
        ['2026.7.0', 'bound'],
      ]);
      expect(out.signatures.map((s) => [s.of, s.status])).toEqual([['acme-app:2026.7.0', 'valid']]);
      expect(out.evidence.map((e) => e.of)).toEqual(['acme-app:2026.7.0']);
    }
    const drift = await flow.release([
      'verify',
      '--url',
      url,
      '--registry',
      '--expect',
      '2026.6.0',
      '--no-cli',
    ]);
    expect(drift.code).toBe(1);
  });
});
