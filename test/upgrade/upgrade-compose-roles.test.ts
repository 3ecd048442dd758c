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

// fixtures/one-image deployed with Compose as self-hosted projects deploy one application image:
// the same image three times, api by its default command, worker and scheduler by `command:`.
// `release upgrade --compose` must move all three in one phase, and when the release's worker
// command crashes, put all three back; `release verify --compose` reads one row per role, and
// with `--registry` one registry reading per role against the digest the release tag names.

let engine: Dockerd;
let registry: RunningRegistry;
let repo: GitRepo;
let root: string;
let file: string;
let apiUrl: string;
let namespace: string;
const digests: Record<string, string> = {};

/** A release of the app image (api artifact only), its version tag written by digest as promotion would. */
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
  worker:
    <<: *app
    command: ["worker"]
  scheduler:
    <<: *app
    command: ["scheduler"]
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
  await buildTag('v1.2.0', 'worker');
  root = mkdtempSync('/tmp/sr-compose-roles-');
  const dir = join(root, 'acme');
  mkdirSync(dir);
  file = join(dir, 'docker-compose.yml');
  const apiPort = await freePort();
  apiUrl = `http://127.0.0.1:${apiPort}`;
  writeFileSync(file, composeFile(apiPort));
  await run('docker-compose', ['-f', file, 'up', '-d'], {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', DOCKER_HOST: engine.host },
    timeout: 120_000,
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

describe('upgrade --compose of one image in three roles', () => {
  it('moves api, worker and scheduler together; verify --compose reads one row per role', async () => {
    const upgrade = await runRelease(['upgrade', '--to', 'v1.1.0', ...target()], {
      cwd: repo.dir,
      timeoutMs: 300_000,
    });
    expect(upgrade.code, upgrade.stdout + upgrade.stderr).toBe(0);
    const images = await running();
    for (const service of ['api', 'worker', 'scheduler'])
      expect(
        images[service]!.every((ref) => ref.includes(digests['v1.1.0']!)),
        service,
      ).toBe(true);
    const verify = await runRelease(
      ['verify', '--url', apiUrl, '--compose', file, '--docker-host', engine.host, '--json'],
      { cwd: repo.dir },
    );
    const report = jsonOf<{ artifacts: { name: string; role?: string; version: string; status: string }[] }>(
      verify,
    );
    expect(verify.code, verify.stdout).toBe(0);
    expect(report.artifacts.find((a) => a.role === 'scheduler')).toMatchObject({
      version: 'v1.1.0',
      status: 'ok',
    });
    // The fixture declares no CLI: no CLI row.
    expect(report.artifacts.map((a) => a.name)).not.toContain('cli');
    // --registry: one reading per role, each against the digest its service's containers run.
    const withRegistry = await runRelease(
      ['verify', '--url', apiUrl, '--compose', file, '--docker-host', engine.host, '--registry', '--json'],
      { cwd: repo.dir },
    );
    const registryReport = jsonOf<{
      findings: { code: string }[];
      registry: { artifact: string; role?: string; expected: string; running: { digest: string }[] }[];
    }>(withRegistry);
    expect(withRegistry.code, withRegistry.stdout).toBe(0);
    expect(
      registryReport.registry.map((r) => [
        r.artifact,
        r.role ?? null,
        r.expected,
        r.running.map((x) => x.digest),
      ]),
    ).toEqual([
      ['api', null, digests['v1.1.0'], [digests['v1.1.0']]],
      ['worker', null, digests['v1.1.0'], [digests['v1.1.0']]],
      ['worker', 'scheduler', digests['v1.1.0'], [digests['v1.1.0']]],
    ]);
    expect(registryReport.findings.filter((f) => f.code.startsWith('REGISTRY_'))).toEqual([]);
  }, 400_000);

  it("rolls all three back when the release's worker command crashes", async () => {
    const upgrade = await runRelease(['upgrade', '--to', 'v1.2.0', ...target()], {
      cwd: repo.dir,
      timeoutMs: 400_000,
    });
    expect(upgrade.code, upgrade.stdout + upgrade.stderr).toBe(1);
    const images = await running();
    for (const service of ['api', 'worker', 'scheduler'])
      expect(
        images[service]!.every((ref) => ref.includes(digests['v1.1.0']!)),
        service,
      ).toBe(true);
  }, 500_000);
});
