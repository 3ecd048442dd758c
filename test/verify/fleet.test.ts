import { writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { type InProcessDeployment, startInProcessDeployment } from './in-process-deployments.ts';
import { buildWebRoot, Cleanup } from './support.ts';

// `release verify --all` over a fleet of 30 deployments listed in a real config file, each made of
// the reference API (with the built web client on its origin) and the reference worker.

interface FleetJson {
  inStep: boolean;
  exitCode: number;
  summary: { total: number; inStep: number; drift: number; unreachable: number };
  elapsedMs: number;
  deployments: {
    name: string;
    url: string;
    inStep: boolean;
    exitCode: number;
    findings: { code: string; message: string; fix: string }[];
  }[];
}

const cleanup = new Cleanup();
const fleet: InProcessDeployment[] = [];
let cwd: string;
let hangingUrl: string;

beforeAll(async () => {
  cwd = cleanup.tempDir('fleet');
  const [stamped, unstamped] = [await buildWebRoot(cleanup, 'v2.1.0'), await buildWebRoot(cleanup, '')];
  for (let i = 0; i < 30; i++) {
    const drift = i === 7 ? 'worker' : i === 19 ? 'web' : undefined;
    const d = await startInProcessDeployment({
      name: `site-${String(i).padStart(2, '0')}`,
      apiVersion: 'v2.1.0',
      workerVersion: drift === 'worker' ? 'v2.0.3' : '2.1.0',
      webRoot: drift === 'web' ? unstamped : stamped,
    });
    fleet.push(d);
    cleanup.add(() => d.close());
  }
  // A server that accepts connections and never answers: only the per-target deadline ends it.
  const sockets = new Set<Socket>();
  const hanging: Server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  hangingUrl = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;
  cleanup.add(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => hanging.close(resolve));
  });
}, 180_000);

afterAll(() => cleanup.run());

function writeConfig(name: string, deployments: object[]): string {
  const path = join(cwd, name);
  writeFileSync(path, JSON.stringify({ deployments }));
  return path;
}

const entry = (d: InProcessDeployment) => ({
  name: d.name,
  url: d.url,
  webUrl: d.webUrl,
  workerUrl: d.workerUrl,
});

describe('release verify --all', () => {
  it('checks every deployment concurrently and names the ones that drifted', async () => {
    const config = writeConfig('drift.json', fleet.map(entry));
    const result = await runRelease(
      ['verify', '--all', '--no-cli', '--json', '--config', config, '--concurrency', '8'],
      { cwd },
    );
    const report = jsonOf<FleetJson>(result);
    expect(result.code).toBe(1);
    expect(report.summary).toEqual({ total: 30, inStep: 28, drift: 2, unreachable: 0 });
    expect(report.deployments.map((d) => d.name)).toEqual(fleet.map((d) => d.name));
    const drifted = report.deployments.filter((d) => !d.inStep);
    expect(drifted.map((d) => [d.name, d.findings.map((f) => f.code)])).toEqual([
      ['site-07', ['API_WORKER_MISMATCH']],
      ['site-19', ['VERSION_UNKNOWN']],
    ]);
    expect(drifted[1]!.findings[0]!.fix).toContain('rebuild web with SERVICE_CLIENT_VERSION=v2.1.0');
  });

  it('exits 0 when the whole fleet is in step, and prints one summary', async () => {
    const config = writeConfig('ok.json', fleet.filter((_, i) => i !== 7 && i !== 19).map(entry));
    const result = await runRelease(['verify', '--all', '--no-cli', '--config', config], { cwd });
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/^DEPLOYMENT\s+API\s+VERSION\s+STATUS\s+FINDINGS$/m);
    expect(result.stdout).toMatch(/^site-00\s+http:\/\/127\.0\.0\.1:\d+\s+v2\.1\.0\s+in step$/m);
    expect(result.stdout).toMatch(
      /^28 deployments checked in \d+\.\d\d s: 28 in step, 0 drift, 0 unreachable$/m,
    );
  });

  it('bounds each deployment by --target-timeout: a hanging API and a closed port give exit 3, the rest still report', async () => {
    const config = writeConfig('down.json', [
      ...fleet.slice(0, 5).map(entry),
      { name: 'hangs', url: hangingUrl },
      { name: 'closed', url: 'http://127.0.0.1:9' },
    ]);
    const started = performance.now();
    const result = await runRelease(
      [
        'verify',
        '--all',
        '--no-cli',
        '--json',
        '--config',
        config,
        '--timeout',
        '20000',
        '--target-timeout',
        '1500',
      ],
      { cwd },
    );
    const report = jsonOf<FleetJson>(result);
    expect(result.code).toBe(3);
    expect(report.summary).toEqual({ total: 7, inStep: 5, drift: 0, unreachable: 2 });
    const hangs = report.deployments.find((d) => d.name === 'hangs')!;
    expect(hangs.findings[0]!.message).toContain('cancelled: the deployment deadline passed');
    // The per-target deadline (1.5 s), not the 20 s probe deadline, ended it (generous margin).
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('refuses --all without deployments in the config (exit 2)', async () => {
    const config = writeConfig('empty.json', []);
    const result = await runRelease(['verify', '--all', '--config', config], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no deployments are configured');
  });

  it('rejects an invalid deployments list with path: message problems (exit 2)', async () => {
    const config = writeConfig('bad.json', [
      { name: 'a', url: 'ftp://x' },
      { name: 'a', url: 'http://x', extra: 1 },
    ]);
    const result = await runRelease(['verify', '--all', '--config', config], { cwd });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('deployments.0.url: expected the API base URL');
    expect(result.stderr).toContain('deployments.1.extra: unknown key');
  });
});
