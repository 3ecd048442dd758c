import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OciImageConfig } from '../../src/oci-image/image-config.ts';
import { applyLayers, readLayer } from '../../src/oci-image/read-layer.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { fixtureProject } from '../fixtures/fixture-project.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { type StartedProcess, startProcess } from '../helpers/start-process.ts';

// Two web clients, each its own image (an app and an admin dashboard, as a pnpm monorepo with
// apps/web and apps/admin builds them): fixtures/one-image with an `admin` web artifact, through
// build, a signed rc and the release from it on a real docker-registry, then verify against the
// release images' own servers, run from their layers: in step with `--web-url app=…` and
// `--web-url admin=…`, and drift naming admin when the admin still serves the rc.

const RC = 'v1.3.0-rc.1';
const RELEASE = 'v1.3.0';
const env = {
  RELEASE_SIGNING_PASSPHRASE: 'correct horse battery staple',
  RELEASE_VERIFIER_PASSPHRASE: 'verifier passphrase',
};

let registry: RunningRegistry;
let store: RegistryStore;
let repo: GitRepo;
let built: { images: Record<string, unknown> };
const running: StartedProcess[] = [];
const trees: string[] = [];
const release = (args: string[]) =>
  runRelease([...args, '--json'], { cwd: repo.dir, env, timeoutMs: 240_000 });
const ok = async (args: string[]) => {
  const run = await release(args);
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  return jsonOf<Record<string, unknown>>(run);
};

beforeAll(async () => {
  registry = await startRegistry();
  store = new RegistryStore({ registry: registry.host, env: {} });
  repo = fixtureProject('one-image', { registry: `${registry.host}/acme` });
  const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8'));
  // The app keeps the name `web`'s image; the admin dashboard is a second web artifact, built by a
  // command of its own into its own folder and image.
  config.artifacts.web = { ...config.artifacts.web, role: 'web' };
  config.artifacts.admin = {
    role: 'web',
    image: 'acme-admin',
    build: { command: ['node', 'scripts/build-admin.mjs'] },
    files: [{ from: 'admin/dist', to: '/srv/web' }],
    entrypoint: ['/usr/local/bin/node', '/srv/web/server.mjs'],
    user: '65534:65534',
    versionFiles: [{ path: '/srv/web/version.json', format: 'json' }],
  };
  config.verifier = { publicKey: 'vkeys/release-verifier.pub', privateKey: 'vkeys/release-verifier.key' };
  repo.write('release.config.json', JSON.stringify(config, null, 2));
  repo.write(
    'scripts/build-admin.mjs',
    [
      "import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';",
      "const version = process.env.VITE_ACME_VERSION ?? 'unknown';",
      "mkdirSync('admin/dist', { recursive: true });",
      "copyFileSync('web/server.mjs', 'admin/dist/server.mjs');",
      "writeFileSync('admin/dist/version.json', JSON.stringify({ version, app: 'admin' }) + '\\n');",
      "writeFileSync('admin/dist/index.html', '<meta name=\"acme-version\" content=\"' + version + '\"><title>admin</title>\\n');",
      '',
    ].join('\n'),
  );
  await writeKeyPair(join(repo.dir, 'keys'), env);
  await ok(['keygen', '--verifier', '--out', 'vkeys']);
  repo.write('.gitignore', 'dist/\n.release/\nnode_modules/\napp/dist/\nweb/dist/\nadmin/dist/\n');
  repo.commit('acme with an admin dashboard');
  repo.annotatedTag(RC);
  await ok(['stamp']);
  built = (await ok(['build', '--engine', 'oci', '--push'])) as typeof built;
  await ok(['promote', '--channel', 'rc']);
  repo.annotatedTag(RELEASE);
  await ok(['promote', '--channel', 'release', '--from', RC, '--version', RELEASE]);
}, 600_000);

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop()));
  for (const dir of trees) rmSync(dir, { recursive: true, force: true });
  await registry?.stop();
  repo?.remove();
});

async function manifestOf(repository: string, tag: string) {
  const manifest = await store.getManifest(`acme/${repository}`, tag);
  return JSON.parse(Buffer.from(manifest!.bytes).toString('utf8')) as {
    config: { digest: string };
    layers: { digest: string }[];
  };
}

async function envOf(repository: string, tag: string): Promise<Record<string, string>> {
  const config = JSON.parse(
    Buffer.from(
      await store.getBlob(`acme/${repository}`, (await manifestOf(repository, tag)).config.digest),
    ).toString(),
  ) as OciImageConfig;
  return Object.fromEntries(config.config!.Env!.map((l) => l.split('=', 2) as [string, string]));
}

/** The image's files under /srv, written to a folder of their own (what its container would see). */
async function srvTree(repository: string, tag: string): Promise<string> {
  const layers = [];
  for (const layer of (await manifestOf(repository, tag)).layers)
    layers.push(
      await readLayer(await store.getBlob(`acme/${repository}`, layer.digest), {
        what: repository,
        keep: (p) => p.startsWith('/srv/'),
      }),
    );
  const root = mkdtempSync(join(tmpdir(), `two-web-${repository}-`));
  trees.push(root);
  for (const [path, node] of applyLayers(layers)) {
    if (node.type !== 'file' || !path.startsWith('/srv/')) continue;
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), node.content);
  }
  return root;
}

/** Run the server of `repository:tag` from its own files, as its container would. */
async function serve(repository: string, tag: string, path: string, args: string[] = []) {
  const root = await srvTree(repository, tag);
  const server = await startProcess(join(root, path), {
    args,
    env: { ...(await envOf(repository, tag)), PORT: '0', HOST: '127.0.0.1' },
    readyPattern: /listening on (http:\/\/127\.0\.0\.1:\d+)/,
  });
  running.push(server);
  return server.url;
}

describe('two web clients, each its own image', () => {
  it('builds, records and promotes both web images, each with the client version', async () => {
    expect(Object.keys(built.images).sort()).toEqual(['admin', 'api', 'web']);
    const record = JSON.parse(readFileSync(join(repo.dir, 'dist/release.json'), 'utf8'));
    expect(record.artifacts.admin).toMatchObject({ role: 'web' });
    for (const tag of [RC, RELEASE]) {
      expect(await envOf('acme-web', tag)).toMatchObject({
        VITE_ACME_VERSION: tag,
        SERVICE_CLIENT_VERSION: tag,
      });
      expect(await envOf('acme-admin', tag)).toMatchObject({
        VITE_ACME_VERSION: tag,
        SERVICE_CLIENT_VERSION: tag,
      });
    }
    expect(await store.listTags('acme/acme-admin')).toEqual(expect.arrayContaining([RC, RELEASE, 'latest']));
  });

  it('names both web images in the signed release set', () => {
    const statement = JSON.parse(readFileSync(join(repo.dir, 'dist/release-set.intoto.json'), 'utf8')) as {
      predicate: { version: string; artifacts: Record<string, { repository: string }> };
    };
    expect(statement.predicate.version).toBe(RELEASE);
    expect(Object.keys(statement.predicate.artifacts).sort()).toEqual(['admin', 'api', 'web']);
    expect(statement.predicate.artifacts['admin']!.repository).toMatch(/acme-admin$/);
  });

  it('re-stamps the admin version file in the release made from the rc', async () => {
    const root = await srvTree('acme-admin', RELEASE);
    expect(JSON.parse(readFileSync(join(root, 'srv/web/version.json'), 'utf8'))).toMatchObject({
      version: RELEASE,
    });
  });

  it('verifies each web client at its own URL, and names admin when it drifts', async () => {
    const [api, app, admin, staleAdmin] = await Promise.all([
      serve('acme-app', RELEASE, 'srv/app/main.mjs', ['api']),
      serve('acme-web', RELEASE, 'srv/web/server.mjs'),
      serve('acme-admin', RELEASE, 'srv/web/server.mjs'),
      serve('acme-admin', RC, 'srv/web/server.mjs'),
    ]);
    const verify = (adminUrl: string, ...more: string[]) =>
      release([
        'verify',
        ...more,
        '--url',
        api,
        '--web-url',
        `web=${app}`,
        '--web-url',
        `admin=${adminUrl}`,
        '--registry',
        '--require-signature',
        '--expect',
        RELEASE,
      ]);
    type Report = {
      summaries?: { about: string; result: string }[];
      warnings?: string[];
      signatures: { artifact: string; repository: string; status: string }[];
      provenance: { artifact: string; restampMatches?: boolean; releaseSignature?: string }[];
      artifacts: { name: string; role?: string; status: string; version: string | null }[];
      findings: { code: string; message: string; fix: string; severity: string; artifact?: string }[];
    };
    const inStep = await verify(admin, '--attest');
    const report = jsonOf<Report>(inStep);
    expect(inStep.code, JSON.stringify(report.findings, null, 1)).toBe(0);
    // The app is the artifact called web (its row is `web`); the admin's row is `web admin`.
    expect(
      report.artifacts.filter((a) => a.name === 'web').map((a) => [a.role ?? null, a.version, a.status]),
    ).toEqual([
      [null, RELEASE, 'ok'],
      ['admin', RELEASE, 'ok'],
    ]);
    // The admin's image is checked in the store like the app's: signed, and the rc re-stamped.
    expect(report.signatures.map((s) => [s.artifact, s.status])).toEqual(
      expect.arrayContaining([
        ['web', 'valid'],
        ['admin', 'valid'],
      ]),
    );
    expect(report.provenance.find((p) => p.artifact === 'admin')).toMatchObject({
      restampMatches: true,
      releaseSignature: 'bound',
    });

    // --attest vouches for every image it checked, both web clients among them, and the set.
    expect(report.warnings ?? []).toEqual([]);
    expect(report.summaries?.map((s) => [s.about, s.result])).toEqual([
      ['api', 'PASSED'],
      ['web', 'PASSED'],
      ['admin', 'PASSED'],
      ['release-set', 'PASSED'],
    ]);

    const drifted = await verify(staleAdmin);
    const drift = jsonOf<Report>(drifted);
    expect(drifted.code).toBe(1);
    expect(drift.artifacts.find((a) => a.role === 'admin')).toMatchObject({ status: 'drift', version: RC });
    expect(drift.artifacts.find((a) => a.name === 'web' && a.role !== 'admin')).toMatchObject({
      status: 'ok',
    });
    const finding = drift.findings.find((f) => f.code === 'NOT_EXPECTED_TAG');
    expect(finding?.message).toContain(`web admin at ${staleAdmin}`);
    expect(finding?.fix).toContain(`acme-admin:${RELEASE}`);

    const text = await runRelease(
      [
        'verify',
        '--url',
        api,
        '--web-url',
        `web=${app}`,
        '--web-url',
        `admin=${staleAdmin}`,
        '--expect',
        RELEASE,
      ],
      { cwd: repo.dir, env, timeoutMs: 120_000 },
    );
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/web admin\s/);

    // watch reads the same flags the same way: one round, the admin's drift named.
    const watched = await runRelease(
      [
        'watch',
        '--once',
        '--url',
        api,
        '--web-url',
        `web=${app}`,
        '--web-url',
        `admin=${staleAdmin}`,
        '--expect',
        RELEASE,
      ],
      { cwd: repo.dir, env, timeoutMs: 120_000 },
    );
    expect(watched.code, watched.stderr).toBe(1);
    expect(watched.stdout).toMatch(/web admin\s.*v1\.3\.0-rc\.1/);
    const bare = await runRelease(['watch', '--once', '--url', api, '--web-url', app], {
      cwd: repo.dir,
      env,
      timeoutMs: 120_000,
    });
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('the config has 2 web clients (web, admin)');
  }, 240_000);
});
