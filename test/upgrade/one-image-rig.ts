import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import { openStore } from '../../src/registry/open-store.ts';
import { fixtureProject } from '../fixtures/fixture-project.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { freePort, type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { waitFor } from './swarm.ts';

const run = promisify(execFile);

/**
 * What the suites that deploy `fixtures/one-image` (one application image run as several roles)
 * share: a private dockerd, a registry, and the fixture released three times, v1.0.0 and v1.1.0
 * sound and v1.2.0 with one role's command crashing at start. Each suite deploys it its own way
 * (Compose, Swarm) and stops `engine` and `registry` and removes `repo` when done.
 */
export interface OneImageRig {
  engine: Dockerd;
  registry: RunningRegistry;
  repo: GitRepo;
  /** `<registry>/acme`: where the app image is pushed (`<namespace>/acme-app`). */
  namespace: string;
  /** Tag -> the app image's manifest digest. */
  digests: Record<string, string>;
  /** Artifact -> tag -> its image's manifest digest, for every artifact built (the app's too). */
  images: Record<string, Record<string, string>>;
}

/** What a suite adds to the rig: more artifacts built each release, and where the crash goes. */
export interface OneImageOptions {
  /** The artifacts built and tagged each release (default: the app image alone, `api`). */
  build?: string[];
  /** The artifacts whose image env carries v1.2.0's `ACME_CRASH` (default: `api`, the app image). */
  crashIn?: string[];
}

/**
 * Start the rig; `crash` is the role (`api`, `worker`, `migrate`) whose command v1.2.0 crashes.
 * `configure` changes the fixture's config before the first release (a job role declared).
 */
export async function startOneImageRig(
  crash: string,
  configure?: (config: { artifacts: Record<string, unknown> }, repo: GitRepo) => void,
  options: OneImageOptions = {},
): Promise<OneImageRig> {
  const [engine, registry] = await Promise.all([startDockerd(), startRegistry()]);
  const namespace = `${registry.host}/acme`;
  const repo = fixtureProject('one-image', { registry: namespace, signing: undefined });
  if (configure) {
    const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8'));
    configure(config, repo);
    repo.write('release.config.json', JSON.stringify(config));
  }
  repo.write('.gitignore', 'dist/\n.release/\nnode_modules/\napp/dist/\nweb/dist/\nadmin/dist/\n');
  const rig: OneImageRig = { engine, registry, repo, namespace, digests: {}, images: {} };
  await releaseAppImage(rig, 'v1.0.0', options);
  await releaseAppImage(rig, 'v1.1.0', options);
  await releaseAppImage(rig, 'v1.2.0', options, crash);
  return rig;
}

/**
 * A release of the app image (the api artifact only, unless `options.build` names more: every
 * role runs its image), each version tag written by digest as promotion would. With `crash`, the
 * release's images of `options.crashIn` make that role exit.
 */
async function releaseAppImage(
  rig: OneImageRig,
  tag: string,
  options: OneImageOptions,
  crash?: string,
): Promise<void> {
  const { repo, registry, namespace } = rig;
  const build = options.build ?? ['api'];
  const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8'));
  if (crash) {
    for (const name of options.crashIn ?? ['api'])
      config.artifacts[name].env = { ...config.artifacts[name].env, ACME_CRASH: crash };
    repo.write('release.config.json', JSON.stringify(config));
  }
  repo.commit(tag);
  repo.tag(tag);
  const stamp = await runRelease(['stamp', '--json'], { cwd: repo.dir });
  expect(stamp.code, stamp.stderr).toBe(0);
  const built = await runRelease(
    ['build', '--engine', 'oci', '--only', build.join(','), '--push', '--json'],
    { cwd: repo.dir, timeoutMs: 180_000 },
  );
  expect(built.code, built.stderr).toBe(0);
  const images = jsonOf<{ images: Record<string, { digest: string }> }>(built).images;
  const store = openStore(namespace, { cwd: repo.dir, env: {}, insecure: [registry.host] });
  for (const name of build) {
    const digest = images[name]!.digest;
    const image = config.artifacts[name].image as string;
    const manifest = (await store.getManifest(image, digest))!;
    await store.putManifest(image, tag, manifest.bytes, manifest.descriptor.mediaType);
    rig.images[name] = { ...rig.images[name], [tag]: digest };
  }
  rig.digests[tag] = images['api']!.digest;
}

/**
 * Add an admin dashboard to the fixture's config: a second web client, its own image
 * (`acme-admin`), built by a command of its own into its own folder, beside the `web` app.
 */
export function addAdminWeb(config: { artifacts: Record<string, unknown> }, repo: GitRepo): void {
  const web = config.artifacts['web'] as Record<string, unknown>;
  config.artifacts['web'] = { ...web, role: 'web' };
  config.artifacts['admin'] = {
    ...web,
    role: 'web',
    image: 'acme-admin',
    build: { command: ['node', 'scripts/build-admin.mjs'] },
    files: [{ from: 'admin/dist', to: '/srv/web' }],
  };
  repo.write(
    'scripts/build-admin.mjs',
    [
      "import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';",
      "const version = process.env.VITE_ACME_VERSION ?? 'unknown';",
      "mkdirSync('admin/dist', { recursive: true });",
      "copyFileSync('web/server.mjs', 'admin/dist/server.mjs');",
      "writeFileSync('admin/dist/version.json', JSON.stringify({ version, app: 'admin' }) + '\\n');",
      "writeFileSync('admin/dist/index.html', '<title>admin ' + version + '</title>\\n');",
      '',
    ].join('\n'),
  );
}

/** Wait until the API at `apiUrl` reports `version` (the deployment is up). */
export function waitForApiVersion(apiUrl: string, version: string, ms = 90_000): Promise<unknown> {
  return waitFor(async () => {
    const res = await fetch(`${apiUrl}/api/version`, { signal: AbortSignal.timeout(2_000) }).catch(
      () => undefined,
    );
    return res?.ok ? ((await res.json()) as { version: string }).version === version || undefined : undefined;
  }, ms);
}

/** A Compose project of the rig's image, up on its engine, its API answering v1.0.0. */
export interface OneImageProject {
  /** A temporary directory holding the project (`<root>/acme`): remove it when done. */
  root: string;
  /** Its compose file. */
  file: string;
  apiUrl: string;
}

/**
 * Write the compose file `composeFile(apiPort)` as project `acme` in a new directory under
 * `/tmp/<prefix>`, `docker-compose up -d` it on the rig's engine, and wait for its API.
 */
export async function upComposeProject(
  rig: OneImageRig,
  prefix: string,
  composeFile: (apiPort: number) => string,
): Promise<OneImageProject> {
  const root = mkdtempSync(`/tmp/${prefix}`);
  const dir = join(root, 'acme');
  mkdirSync(dir);
  const file = join(dir, 'docker-compose.yml');
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  writeFileSync(file, composeFile(apiPort));
  await run('docker-compose', ['-f', file, 'up', '-d'], {
    cwd: dir,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/tmp',
      DOCKER_HOST: rig.engine.host,
    },
    timeout: 180_000,
  });
  await waitForApiVersion(apiUrl, 'v1.0.0');
  return { root, file, apiUrl };
}

/** The suite's teardown: stop the rig's engine and registry, remove its repository and the Compose project's folder. */
export async function stopOneImageRig(rig: OneImageRig | undefined, root?: string): Promise<void> {
  await Promise.all([rig?.engine.stop(), rig?.registry.stop()]);
  rig?.repo.remove();
  if (root) rmSync(root, { recursive: true, force: true });
}

/** Compose service -> the image references its running containers (project `acme`) were created from. */
export async function runningComposeImages(rig: OneImageRig): Promise<Record<string, string[]>> {
  const containers = await rig.engine.docker.listContainers({
    filters: { label: ['com.docker.compose.project=acme'], status: ['running'] },
  });
  const out: Record<string, string[]> = {};
  for (const c of containers) {
    const info = await rig.engine.docker.getContainer(c.Id).inspect();
    const service = info.Config.Labels['com.docker.compose.service']!;
    out[service] = [...(out[service] ?? []), info.Config.Image].sort();
  }
  return out;
}

/** The passphrases of the signing and verifier keys `releaseSigned` writes. */
export const SIGNING_ENV = {
  RELEASE_SIGNING_PASSPHRASE: 'one-image release',
  RELEASE_VERIFIER_PASSPHRASE: 'one-image verifier',
};

/**
 * Release the fixture the way a team does: keys made, every artifact built and pushed, promoted to
 * the signed rc `rc`, then `release` promoted from that rc (re-stamped, signed, the release set
 * written). No role crashes in it, and it has no web client: one image, run as api, worker and
 * scheduler, is the whole release. Returns the release's app image digest (also in `rig.digests`).
 */
export async function releaseSigned(rig: OneImageRig, rc: string, release: string): Promise<string> {
  const { repo } = rig;
  const config = JSON.parse(readFileSync(join(repo.dir, 'release.config.json'), 'utf8'));
  delete config.artifacts.api.env.ACME_CRASH;
  config.artifacts.web = false;
  // A second web client a suite added (addAdminWeb) goes too: the release is the one image.
  for (const [name, artifact] of Object.entries(config.artifacts))
    if ((artifact as { role?: string } | null)?.role === 'web') delete config.artifacts[name];
  config.signing = { publicKey: 'keys/release-signing.pub', privateKey: 'keys/release-signing.key' };
  config.verifier = { publicKey: 'vkeys/release-verifier.pub', privateKey: 'vkeys/release-verifier.key' };
  repo.write('release.config.json', JSON.stringify(config));
  repo.commit(release);
  repo.annotatedTag(rc);
  const steps = [
    ['keygen', '--out', 'keys'],
    ['keygen', '--verifier', '--out', 'vkeys'],
    ['stamp'],
    ['build', '--engine', 'oci', '--push'],
    ['promote', '--channel', 'rc'],
  ];
  for (const args of steps) {
    const result = await runRelease(args, { cwd: repo.dir, env: SIGNING_ENV, timeoutMs: 240_000 });
    expect(result.code, `${args.join(' ')}\n${result.stderr}`).toBe(0);
  }
  repo.annotatedTag(release);
  const promoted = await runRelease(
    ['promote', '--channel', 'release', '--from', rc, '--version', release, '--json'],
    { cwd: repo.dir, env: SIGNING_ENV, timeoutMs: 240_000 },
  );
  expect(promoted.code, promoted.stderr).toBe(0);
  const store = openStore(rig.namespace, { cwd: repo.dir, env: {}, insecure: [rig.registry.host] });
  const manifest = (await store.getManifest('acme-app', release))!;
  rig.digests[release] = manifest.descriptor.digest;
  return manifest.descriptor.digest;
}
