import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followProgress, progressError } from '../../src/docker-client/connect.ts';
import { VERSION_LABEL } from '../../src/oci-image/version-layer.ts';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import { createApiServer } from '../../src/service/api/server.ts';
import { listen } from '../../src/service/http/lifecycle.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import { pushImage } from '../helpers/make-image.ts';
import { makePauseImage } from '../helpers/pause-image.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { jsonOf, type RunResult, runRelease } from '../helpers/run-release.ts';
import { Cleanup } from '../verify/support.ts';

// `release watch` reads a Compose deployment of the config as `release verify --all` does: the
// worker from the containers of its project (Debian's docker-compose on a private dockerd), not
// from every container of the worker image on the engine. A stray container of an older worker,
// outside the project, is there to show the reading is the project's. Watch once had its own copy
// of verify's target building that dropped `deployments[].compose`.

const run = promisify(execFile);
const TAG = 'v1.4.0';
const cleanup = new Cleanup();
let engine: Dockerd;
let registry: RunningRegistry;
let cwd: string;
let apiUrl: string;
let composeFile: string;

/** Pull by hand what the project runs, so a registry or engine fault is named here, not in Compose. */
async function pull(ref: string): Promise<void> {
  const error = progressError(await followProgress(await engine.docker.pull(ref)));
  if (error) throw new Error(`docker pull ${ref}: ${error}`);
}

beforeAll(async () => {
  // Fail fast, with the remedy, before starting anything that would need cleaning up.
  await run('docker-compose', ['version', '--short'], { timeout: 30_000 }).catch((error: Error) => {
    throw new Error(`docker-compose does not run here (apt-get install docker-compose): ${error.message}`);
  });
  cwd = cleanup.tempDir('watch-compose');
  [engine, registry] = await Promise.all([startDockerd(), startRegistry()]);
  cleanup.add(() => engine.stop());
  cleanup.add(() => registry.stop());
  const store = new RegistryStore({ registry: registry.host, env: {} });
  // Two worker releases that run (the pause program), each saying its version as a built one does.
  for (const tag of [TAG, 'v1.3.0']) {
    const image = makePauseImage({ env: [`SERVICE_VERSION=${tag}`], labels: { [VERSION_LABEL]: tag } });
    await pushImage(store, 'service-worker', image, tag);
    await pull(`${registry.host}/service-worker:${tag}`);
  }
  // The stray: an older worker on the same engine, not in the project.
  const stray = await engine.docker.createContainer({
    name: 'stray-worker',
    Image: `${registry.host}/service-worker:v1.3.0`,
    HostConfig: { NetworkMode: 'none' },
  });
  await stray.start();

  // The project, as an operator keeps it: its directory's name (`shop`) is the project's.
  const project = join(cwd, 'shop');
  mkdirSync(project);
  composeFile = join(project, 'docker-compose.yml');
  writeFileSync(
    composeFile,
    `version: "3.8"
services:
  worker:
    image: ${registry.host}/service-worker:${TAG}
    network_mode: none
    deploy:
      replicas: 2
`,
  );
  await run('docker-compose', ['-f', composeFile, 'up', '-d'], {
    cwd: project,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', DOCKER_HOST: engine.host },
    timeout: 120_000,
  });

  const api = createApiServer({ version: TAG });
  apiUrl = await listen(api, { host: '127.0.0.1', port: 0 });
  cleanup.add(
    () =>
      new Promise<void>((resolve) => {
        api.closeAllConnections();
        api.close(() => resolve());
      }),
  );
  // The deployment as the config names it: the compose file relative to the config's directory.
  writeFileSync(
    join(cwd, 'release.config.json'),
    JSON.stringify({
      registry: registry.host,
      deployments: [{ name: 'shop', url: apiUrl, compose: { files: ['shop/docker-compose.yml'] } }],
    }),
  );
}, 180_000);

afterAll(() => cleanup.run(), 60_000);

interface Report {
  name?: string;
  exitCode: number;
  artifacts: { name: string; version: string; source: string; status: string }[];
  findings: { code: string }[];
}

const release = (args: string[]) =>
  runRelease(args, { cwd, env: { DOCKER_HOST: engine.host }, timeoutMs: 60_000 });

/** The worker rows of a report, in a stable order. */
function workerRows(report: Report) {
  return report.artifacts
    .filter((a) => a.name === 'worker')
    .map(({ version, source, status }) => ({ version, source, status }))
    .sort((a, b) => a.source.localeCompare(b.source));
}

function deploymentsOf(result: RunResult): Report[] {
  expect(result.code, result.stdout + result.stderr).toBe(0);
  return jsonOf<{ deployments: Report[] }>(result).deployments;
}

describe('release watch on a Compose deployment', { timeout: 120_000 }, () => {
  it('--all reads the worker from the project of deployments[].compose, as verify --all does', async () => {
    const args = ['--all', '--no-cli', '--expect', TAG, '--json'];
    const [watched] = deploymentsOf(await release(['watch', '--once', ...args]));
    const [verified] = deploymentsOf(await release(['verify', ...args]));
    expect(watched!.name).toBe('shop');
    // Both replicas of the project, each named by its Compose service; the stray v1.3.0 is not read.
    const rows = workerRows(watched!);
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.version === TAG && r.source.includes('compose service worker'))).toBe(true);
    expect(rows).toEqual(workerRows(verified!));
    expect(watched!.findings.map((f) => f.code)).toEqual(verified!.findings.map((f) => f.code));
  });

  it('--url with --compose reads the same project, as verify --compose does', async () => {
    const args = ['--url', apiUrl, '--compose', composeFile, '--no-cli', '--expect', TAG, '--json'];
    const [watched] = deploymentsOf(await release(['watch', '--once', '--name', 'shop', ...args]));
    const verified = await release(['verify', ...args]);
    expect(verified.code, verified.stdout + verified.stderr).toBe(0);
    expect(workerRows(watched!)).toHaveLength(2);
    expect(workerRows(watched!)).toEqual(workerRows(jsonOf<Report>(verified)));
  });

  it('--all reads a project whose file this Compose CLI cannot parse when the config names the project (getsentry/self-hosted)', async () => {
    // Sentry's self-hosted compose file uses `depends_on.<service>.restart`, which docker-compose
    // v1 refuses; with `projectName` (Sentry sets COMPOSE_PROJECT_NAME in its .env) the project's
    // containers are still read, by watch as by verify, only its one-shot jobs unknown.
    const dir = join(cwd, 'newer');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'docker-compose.yml'),
      `services:
  api:
    image: ${registry.host}/service-api:${TAG}
  worker:
    image: ${registry.host}/service-worker:${TAG}
    depends_on:
      api:
        condition: service_started
        restart: true
`,
    );
    writeFileSync(
      join(cwd, 'newer.config.json'),
      JSON.stringify({
        registry: registry.host,
        deployments: [
          {
            name: 'shop',
            url: apiUrl,
            compose: { files: ['newer/docker-compose.yml'], projectName: 'shop' },
          },
        ],
      }),
    );
    const args = ['--all', '--config', 'newer.config.json', '--no-cli', '--expect', TAG, '--json'];
    const [watched] = deploymentsOf(await release(['watch', '--once', ...args]));
    const [verified] = deploymentsOf(await release(['verify', ...args]));
    expect(workerRows(watched!)).toHaveLength(2);
    expect(workerRows(watched!)).toEqual(workerRows(verified!));
    // Without the name, the file must be read to name the project: refused alike with Compose's
    // error (COMPOSE_INVALID, exit 2).
    writeFileSync(
      join(cwd, 'unnamed.config.json'),
      JSON.stringify({
        registry: registry.host,
        deployments: [{ name: 'shop', url: apiUrl, compose: { files: ['newer/docker-compose.yml'] } }],
      }),
    );
    const unnamed = ['--all', '--config', 'unnamed.config.json', '--no-cli'];
    for (const command of [['watch', '--once'], ['verify']]) {
      const result = await release([...command, ...unnamed]);
      expect(result.code, result.stdout + result.stderr).toBe(2);
      expect(result.stderr).toMatch(/Compose cannot read the project: .*restart/);
    }
  });

  it('one image in two roles: a row per role, each judged on its own containers, as verify does', async () => {
    // The worker's image also runs the scheduler (`command:`); the scheduler still on v1.3.0.
    const dir = join(cwd, 'crew');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'docker-compose.yml'),
      `version: "3.8"
services:
  worker:
    image: ${registry.host}/service-worker:${TAG}
    network_mode: none
  scheduler:
    image: ${registry.host}/service-worker:v1.3.0
    command: ["scheduler"]
    network_mode: none
`,
    );
    await run('docker-compose', ['-f', join(dir, 'docker-compose.yml'), 'up', '-d'], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', DOCKER_HOST: engine.host },
      timeout: 120_000,
    });
    cleanup.add(() =>
      run('docker-compose', ['-f', join(dir, 'docker-compose.yml'), 'down', '-t', '1'], {
        cwd: dir,
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: process.env['HOME'] ?? '/tmp',
          DOCKER_HOST: engine.host,
        },
        timeout: 60_000,
      }).then(() => undefined),
    );
    writeFileSync(
      join(cwd, 'crew.config.json'),
      JSON.stringify({
        registry: registry.host,
        artifacts: {
          worker: { role: 'worker', image: 'service-worker' },
          scheduler: { role: 'worker', image: 'service-worker', command: ['scheduler'] },
        },
        deployments: [{ name: 'crew', url: apiUrl, compose: { files: ['crew/docker-compose.yml'] } }],
      }),
    );
    const args = ['--all', '--config', 'crew.config.json', '--no-cli', '--expect', TAG, '--json'];
    const roleRows = (report: Report) =>
      report.artifacts
        .filter((a) => a.name === 'worker')
        .map((a) => [(a as { role?: string }).role ?? 'worker', a.version, a.status])
        .sort();
    const results = [await release(['watch', '--once', ...args]), await release(['verify', ...args])];
    const [watched, verified] = results.map((r) => {
      expect(r.code, r.stdout + r.stderr).toBe(1);
      return jsonOf<{ deployments: Report[] }>(r).deployments[0]!;
    });
    expect(roleRows(watched!)).toEqual([
      ['scheduler', 'v1.3.0', 'drift'],
      ['worker', TAG, 'ok'],
    ]);
    expect(roleRows(watched!)).toEqual(roleRows(verified!));
    expect(watched!.findings.map((f) => f.code)).toEqual(verified!.findings.map((f) => f.code));
  });

  it('the same engine read without the project sees the stray: drift (what --compose keeps out)', async () => {
    const result = await release(['watch', '--once', '--url', apiUrl, '--docker', '--no-cli', '--json']);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    const [report] = jsonOf<{ deployments: Report[] }>(result).deployments;
    expect(workerRows(report!).map((r) => r.version)).toContain('v1.3.0');
  });
});
