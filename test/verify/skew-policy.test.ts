import { writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '../../src/service/api/server.ts';
import { listen } from '../../src/service/http/lifecycle.ts';
import { createWebServer } from '../../src/service/web/server/web-server.ts';
import { createHealthServer } from '../../src/service/worker/health-server.ts';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import { buildWebRoot, Cleanup } from './support.ts';

// `release verify` with a graded skew policy (config `skew:`): the real API, worker and web servers
// on loopback, the web serving a real build of the web client one or two releases behind (a CDN).

interface Report {
  inStep: boolean;
  exitCode: number;
  findings: { code: string; severity: string; rule?: { id: string; reason: string } }[];
  skew?: { pair: string; grade: string; rule: string }[];
}

const cleanup = new Cleanup();
const urls = {} as Record<'api' | 'worker' | 'webMinorBehind' | 'webTwoBehind', string>;

/** The reference web server serving a real build of the web client with `version` baked in. */
async function webAt(version: string): Promise<Server> {
  return createWebServer({ root: await buildWebRoot(cleanup, version) });
}

async function started(server: Server): Promise<string> {
  const url = await listen(server, { host: '127.0.0.1', port: 0 });
  cleanup.add(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return url;
}

beforeAll(async () => {
  urls.api = await started(createApiServer({ version: 'v1.4.0' }));
  urls.worker = `${await started(createHealthServer({ version: 'v1.4.0' }))}/healthz`;
  urls.webMinorBehind = await started(await webAt('v1.3.2'));
  urls.webTwoBehind = await started(await webAt('v1.2.0'));
}, 240_000);
afterAll(() => cleanup.run());

function project(skew?: unknown): string {
  const cwd = cleanup.tempDir('skew');
  writeFileSync(join(cwd, 'release.config.json'), JSON.stringify(skew ? { skew } : {}));
  return cwd;
}

const verify = (cwd: string, web: string, ...extra: string[]) =>
  runRelease(
    ['verify', '--no-cli', '--url', urls.api, '--worker-url', urls.worker, '--web-url', web, ...extra],
    { cwd },
  );

describe('release verify with a graded skew policy', () => {
  it('keeps the old behaviour without `skew:`: a web one minor behind is drift by rule skew.web', async () => {
    const result = await verify(project(), urls.webMinorBehind, '--json');
    expect(result.code).toBe(1);
    const report = jsonOf<Report>(result);
    expect(report.findings).toMatchObject([
      { code: 'TAG_MISMATCH', severity: 'drift', rule: { id: 'skew.web' } },
    ]);
    expect(report.skew).toEqual([
      expect.objectContaining({ pair: 'worker-api', grade: 'ok', rule: 'equal' }),
      expect.objectContaining({ pair: 'web-api', grade: 'drift', rule: 'skew.web' }),
    ]);
  });

  it('is in step when the web is within the declared window', async () => {
    const result = await verify(project({ web: { minor: 1 } }), urls.webMinorBehind, '--json');
    expect(result.code, result.stdout).toBe(0);
    const report = jsonOf<Report>(result);
    expect(report.findings).toEqual([]);
    expect(report.skew).toContainEqual(
      expect.objectContaining({ pair: 'web-api', grade: 'ok', rule: 'skew.web' }),
    );
  });

  it('warns beyond the window when so declared, prints the rule, and exits 0 (1 with --fail-on warn)', async () => {
    const cwd = project({ web: { minor: 1, beyond: 'warn' } });
    const result = await verify(cwd, urls.webTwoBehind);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/^web\s+\S+\s+v1\.2\.0\s+WARN\s/m);
    expect(result.stdout).toMatch(/^warn TAG_MISMATCH: /m);
    expect(result.stdout).toMatch(
      /^ {4}rule: skew\.web: web v1\.2\.0 is 2 minor behind the API v1\.4\.0; skew\.web allows at most 1 minor/m,
    );
    expect(result.stdout).toMatch(/^in step at v1\.4\.0 \(from api\), 1 warning/m);

    const failing = await verify(cwd, urls.webTwoBehind, '--fail-on', 'warn', '--json');
    expect(failing.code).toBe(1);
    expect(jsonOf<Report>(failing).findings).toMatchObject([{ severity: 'warn', rule: { id: 'skew.web' } }]);
  });

  it('is drift beyond the window by default, naming the rule in --json', async () => {
    const result = await verify(project({ web: { minor: 1 } }), urls.webTwoBehind, '--json');
    expect(result.code).toBe(1);
    const [finding] = jsonOf<Report>(result).findings;
    expect(finding).toMatchObject({ severity: 'drift', rule: { id: 'skew.web' } });
    expect(finding!.rule!.reason).toContain('2 minor behind');
  });

  it('refuses a bad policy and a bad --fail-on as usage errors (exit 2)', async () => {
    const bad = await verify(project({ web: { minor: 'one' } }), urls.webTwoBehind);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('skew.web.minor');
    const flag = await verify(project(), urls.webTwoBehind, '--fail-on', 'notice');
    expect(flag.code).toBe(2);
  });
});
