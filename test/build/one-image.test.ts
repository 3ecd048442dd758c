import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OciImageConfig } from '../../src/oci-image/image-config.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { writeKeyPair } from '../../src/signing/key-files.ts';
import { fixtureProject } from '../fixtures/fixture-project.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';

// fixtures/one-image: one application image that runs as api, worker and scheduler (role by
// command) and a Vite-style web client, reading ACME_VERSION / VITE_ACME_VERSION. Through the real
// commands against a real docker-registry: dev stamp, rc (signed), release from the rc. The image
// is built, signed and promoted once; every version variable is set where the standard ones are.

const RC = 'v1.3.0-rc.1';
const RELEASE = 'v1.3.0';
const PASSPHRASE = 'correct horse battery staple';
const env = { RELEASE_SIGNING_PASSPHRASE: PASSPHRASE };

let registry: RunningRegistry;
let store: RegistryStore;
let repo: GitRepo;
const release = (args: string[]) =>
  runRelease([...args, '--json'], { cwd: repo.dir, env, timeoutMs: 240_000 });
const ok = async (args: string[]) => {
  const run = await release(args);
  expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(0);
  return jsonOf<Record<string, unknown>>(run);
};

async function configOf(repository: string, tag: string): Promise<OciImageConfig> {
  const manifest = await store.getManifest(`acme/${repository}`, tag);
  const json = JSON.parse(Buffer.from(manifest!.bytes).toString('utf8')) as { config: { digest: string } };
  return JSON.parse(
    Buffer.from(await store.getBlob(`acme/${repository}`, json.config.digest)).toString('utf8'),
  );
}
const envOf = async (repository: string, tag: string) =>
  Object.fromEntries(
    (await configOf(repository, tag)).config!.Env!.map((l) => l.split('=', 2) as [string, string]),
  );

let stamped: Record<string, unknown>;
let devStamp: Record<string, unknown>;
let built: { images: Record<string, unknown> };

beforeAll(async () => {
  registry = await startRegistry();
  store = new RegistryStore({ registry: registry.host, env: {} });
  repo = fixtureProject('one-image', { registry: `${registry.host}/acme` });
  await writeKeyPair(join(repo.dir, 'keys'), env);
  repo.write('.gitignore', 'dist/\n.release/\nnode_modules/\napp/dist/\nweb/dist/\n');
  repo.commit('acme');
  // A development build first, promoted to dev, as CI does on every commit.
  devStamp = await ok(['stamp']);
  await ok(['build', '--engine', 'oci', '--push']);
  await ok(['promote', '--channel', 'dev']);
  repo.commit('the release candidate');
  repo.annotatedTag(RC);
  stamped = await ok(['stamp']);
  built = (await ok(['build', '--engine', 'oci', '--push'])) as typeof built;
  await ok(['promote', '--channel', 'rc']);
  repo.annotatedTag(RELEASE);
  await ok(['promote', '--channel', 'release', '--from', RC, '--version', RELEASE]);
}, 600_000);

afterAll(async () => {
  await registry?.stop();
  repo?.remove();
});

describe('one image, several roles, its own version variables', () => {
  it('promotes the dev build of the shared image once, to dev', async () => {
    expect(devStamp).toMatchObject({ channel: 'dev' });
    expect(devStamp['ACME_VERSION']).toBe(devStamp['tag']);
    expect(await store.listTags('acme/acme-app')).toContain('dev');
    expect(await envOf('acme-app', 'dev')).toMatchObject({ ACME_VERSION: devStamp['tag'] });
  });

  it("stamps the service's own variables into --json and the dotenv", () => {
    expect(stamped).toMatchObject({ tag: RC, ACME_VERSION: RC, VITE_ACME_VERSION: RC });
    expect(readFileSync(join(repo.dir, 'dist/release.env'), 'utf8')).toBe(
      `SERVICE_VERSION=${RC}\nACME_VERSION=${RC}\nSERVICE_CLIENT_VERSION=${RC}\nVITE_ACME_VERSION=${RC}\n`,
    );
  });

  it('builds the shared image once, under the artifact with the recipe, and records its roles', () => {
    expect(Object.keys(built.images).sort()).toEqual(['api', 'web']);
    const record = JSON.parse(readFileSync(join(repo.dir, 'dist/release.json'), 'utf8'));
    expect(Object.keys(record.artifacts).sort()).toEqual(['api', 'web']);
    expect(record.artifacts.api.roles).toEqual([
      { artifact: 'api', role: 'api' },
      { artifact: 'worker', role: 'worker' },
      { artifact: 'scheduler', role: 'worker' },
    ]);
  });

  it('gives the build commands every variable (a Vite client reads VITE_ACME_VERSION)', () => {
    expect(JSON.parse(readFileSync(join(repo.dir, 'app/dist/build-env.json'), 'utf8'))).toEqual({
      ACME_VERSION: RC,
    });
    expect(JSON.parse(readFileSync(join(repo.dir, 'web/dist/version.json'), 'utf8'))).toEqual({
      version: RC,
    });
  });

  it('sets the server names in the app image and the client names in the web image, and labels them', async () => {
    expect(await envOf('acme-app', RC)).toMatchObject({
      SERVICE_VERSION: RC,
      ACME_VERSION: RC,
      HOST: '0.0.0.0',
    });
    expect(await envOf('acme-web', RC)).toMatchObject({ SERVICE_CLIENT_VERSION: RC, VITE_ACME_VERSION: RC });
    expect((await configOf('acme-app', RC)).config!.Labels!['org.service-release.version-env']).toBe(
      'ACME_VERSION',
    );
  });

  it('re-stamps every variable in the release made from the rc', async () => {
    expect(await envOf('acme-app', RELEASE)).toMatchObject({
      SERVICE_VERSION: RELEASE,
      ACME_VERSION: RELEASE,
    });
    expect(await envOf('acme-web', RELEASE)).toMatchObject({
      SERVICE_CLIENT_VERSION: RELEASE,
      VITE_ACME_VERSION: RELEASE,
    });
  });

  it('promotes no repository per role, and names the image once with its roles in the release set', async () => {
    for (const role of ['worker', 'scheduler', 'service-worker'])
      expect(await store.listTags(`acme/${role}`).catch(() => [])).toEqual([]);
    const statement = JSON.parse(readFileSync(join(repo.dir, 'dist/release-set.intoto.json'), 'utf8')) as {
      predicate: {
        version: string;
        artifacts: Record<string, { repository: string; roles?: Record<string, string> }>;
      };
    };
    expect(statement.predicate.version).toBe(RELEASE);
    expect(Object.keys(statement.predicate.artifacts).sort()).toEqual(['api', 'web']);
    expect(statement.predicate.artifacts['api']!.roles).toEqual({
      api: 'api',
      worker: 'worker',
      scheduler: 'worker',
    });
  });
});
