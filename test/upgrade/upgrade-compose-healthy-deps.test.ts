import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/registry/open-store.ts';
import { fixtureProject } from '../fixtures/fixture-project.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { freePort, type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { waitFor } from './swarm.ts';

const run = promisify(execFile);

// NetBox's docker-compose.yml (netbox-community/netbox-docker) runs one image as the API
// (`netbox`), the worker and a housekeeping scheduler, and the worker and scheduler wait for the
// API's health check: `depends_on: netbox: condition: service_healthy`. So a `docker-compose up -d`
// that recreates API and worker together must wait for the new API to be healthy before it
// starts the new worker. `release upgrade --compose` moves API and worker in one `up -d`: it must
// still end with all three on the release, in step, and roll back when the new API never gets
// healthy (here: the release's API crashes, so the worker is never started on the new image).

let engine: Dockerd;
let registry: RunningRegistry;
let repo: GitRepo;
let root: string;
let file: string;
let apiUrl: string;
let namespace: string;
const digests: Record<string, string> = {};

/** A release of the app image, its version tag written by digest as promotion would. */
async function buildTag(tag: string, crash?: string): Promise<void> {
  if (crash) {
    const path = join(repo.dir, 'release.config.json');
    const config = JSON.parse(readFileSync(path, 'utf8'));
    config.artifacts.api.env = { ...config.artifacts.api.env, ACME_CRASH: crash };
    writeFileSync(path, JSON.stringify(config));
  }
  repo.commit(tag);
  repo.tag(tag);
  const stamp = await runRelease(['stamp', '--json'], { cwd: repo.dir });
  expect(stamp.code, stamp.stderr).toBe(0);
  const build = await runRelease(['build', '--engine', 'oci', '--only', 'api', '--push', '--json'], {
    cwd: repo.dir,
    timeoutMs: 180_000,
  });
  expect(build.code, build.stderr).toBe(0);
  const digest = jsonOf<{ images: Record<string, { digest: string }> }>(build).images['api']!.digest;
  const store = openStore(namespace, { cwd: repo.dir, env: {}, insecure: [registry.host] });
  const manifest = (await store.getManifest('acme-app', digest))!;
  await store.putManifest('acme-app', tag, manifest.bytes, manifest.descriptor.mediaType);
  digests[tag] = digest;
}

/** NetBox's shape: the API with a health check, worker and scheduler waiting for it to pass. */
function composeFile(apiPort: number): string {
  return `version: "3.8"
x-app: &app
  network_mode: host
  stop_grace_period: 2s
  image: \${APP_IMAGE:-${namespace}/acme-app:v1.0.0}
services:
  api:
    <<: *app
    environment:
      PORT: "${apiPort}"
      HOST: 127.0.0.1
    healthcheck:
      test:
        - CMD
        - /usr/local/bin/node
        - -e
        - "fetch('http://127.0.0.1:${apiPort}/api/version').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
      interval: 1s
      timeout: 3s
      retries: 20
  worker:
    <<: *app
    command: ["worker"]
    depends_on:
      api:
        condition: service_healthy
  scheduler:
    <<: *app
    command: ["scheduler"]
    depends_on:
      api:
        condition: service_healthy
`;
}

/** Service -> the image references its running containers were created from. */
async function running(): Promise<Record<string, string[]>> {
  const containers = await engine.docker.listContainers({
    filters: { label: ['com.docker.compose.project=acme'], status: ['running'] },
  });
  const out: Record<string, string[]> = {};
  for (const c of containers) {
    const info = await engine.docker.getContainer(c.Id).inspect();
    const service = info.Config.Labels['com.docker.compose.service']!;
    out[service] = [...(out[service] ?? []), info.Config.Image].sort();
  }
  return out;
}

const target = () => [
  ...['--compose', file, '--url', apiUrl, '--docker-host', engine.host],
  ...['--service', 'api=api', '--service', 'worker=worker', '--monitor', '2000', '--json'],
];

beforeAll(async () => {
  [engine, registry] = await Promise.all([startDockerd(), startRegistry()]);
  namespace = `${registry.host}/acme`;
  repo = fixtureProject('one-image', { registry: namespace, signing: undefined });
  repo.write('.gitignore', 'dist/\n.release/\nnode_modules/\napp/dist/\nweb/dist/\n');
  await buildTag('v1.0.0');
  await buildTag('v1.1.0');
  await buildTag('v1.2.0', 'api');
  root = mkdtempSync('/tmp/sr-compose-healthy-');
  const dir = join(root, 'acme');
  mkdirSync(dir);
  file = join(dir, 'docker-compose.yml');
  const apiPort = await freePort();
  apiUrl = `http://127.0.0.1:${apiPort}`;
  writeFileSync(file, composeFile(apiPort));
  await run('docker-compose', ['-f', file, 'up', '-d'], {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', DOCKER_HOST: engine.host },
    timeout: 180_000,
  });
  await waitFor(async () => {
    const res = await fetch(`${apiUrl}/api/version`, { signal: AbortSignal.timeout(2_000) }).catch(
      () => undefined,
    );
    return res?.ok
      ? ((await res.json()) as { version: string }).version === 'v1.0.0' || undefined
      : undefined;
  }, 90_000);
}, 600_000);

afterAll(async () => {
  await Promise.all([engine?.stop(), registry?.stop()]);
  repo?.remove();
  if (root) rmSync(root, { recursive: true, force: true });
}, 120_000);

describe('upgrade --compose when worker and scheduler wait for the API to be healthy (NetBox)', () => {
  it('moves all three to the release, the compose file untouched', async () => {
    const before = readFileSync(file, 'utf8');
    const upgrade = await runRelease(['upgrade', '--to', 'v1.1.0', ...target()], {
      cwd: repo.dir,
      timeoutMs: 300_000,
    });
    expect(upgrade.code, upgrade.stdout + upgrade.stderr).toBe(0);
    expect(jsonOf<{ status: string }>(upgrade).status).toBe('upgraded');
    const images = await running();
    for (const service of ['api', 'worker', 'scheduler'])
      expect(
        images[service]?.every((ref) => ref.includes(digests['v1.1.0']!)),
        service,
      ).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe(before);
  }, 400_000);

  it("rolls all three back when the release's API crashes, so it never gets healthy", async () => {
    const upgrade = await runRelease(['upgrade', '--to', 'v1.2.0', ...target(), '--timeout', '60000'], {
      cwd: repo.dir,
      timeoutMs: 400_000,
    });
    expect(upgrade.code, upgrade.stdout + upgrade.stderr).toBe(1);
    expect(jsonOf<{ status: string }>(upgrade).status).toBe('rolled-back');
    const images = await running();
    for (const service of ['api', 'worker', 'scheduler'])
      expect(
        images[service]?.every((ref) => ref.includes(digests['v1.1.0']!)),
        service,
      ).toBe(true);
  }, 500_000);
});
