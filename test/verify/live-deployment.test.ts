import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonOf, runRelease } from '../helpers/run-release.ts';
import {
  buildWebRoot,
  Cleanup,
  startApi,
  startBundledApiWithoutVersion,
  startWeb,
  startWorker,
  withoutVersionJson,
} from './support.ts';

// A live deployment on loopback made of the real reference processes (API, worker, web server),
// checked by the real `release verify` as a subprocess. Drift is made by starting a second
// process at another version, never by faking an answer.

interface Report {
  inStep: boolean;
  exitCode: number;
  reference: { tag: string; from: string } | null;
  artifacts: { name: string; version: string | null; source: string; status: string; why: string }[];
  findings: { code: string; message: string; fix: string; severity: string; artifact?: string }[];
}

const cleanup = new Cleanup();
const urls = {} as Record<
  'api' | 'apiUnknown' | 'apiWithMetaOnlyWeb' | 'worker' | 'workerBehind' | 'web' | 'webUnknown',
  string
>;
let cwd: string;

beforeAll(async () => {
  cwd = cleanup.tempDir('cwd');
  const [stamped, unstamped] = [await buildWebRoot(cleanup, 'v1.4.0'), await buildWebRoot(cleanup, '')];
  const metaOnly = withoutVersionJson(cleanup, stamped);
  const [api, apiUnknown, apiWithMetaOnlyWeb, worker, workerBehind, web, webUnknown] = await Promise.all([
    startApi(cleanup, 'v1.4.0'),
    startBundledApiWithoutVersion(cleanup),
    // The API can serve the web client on its own origin (SERVICE_WEB_ROOT).
    startApi(cleanup, 'v1.4.0', { SERVICE_WEB_ROOT: metaOnly }),
    startWorker(cleanup, '1.4.0'),
    startWorker(cleanup, 'v1.3.2'),
    startWeb(cleanup, stamped),
    startWeb(cleanup, unstamped),
  ]);
  Object.assign(urls, {
    api: api.url,
    apiUnknown: apiUnknown.url,
    apiWithMetaOnlyWeb: apiWithMetaOnlyWeb.url,
    worker: worker.url,
    workerBehind: workerBehind.url,
    web: web.url,
    webUnknown: webUnknown.url,
  });
}, 240_000);

afterAll(() => cleanup.run());

async function verify(args: string[]) {
  const result = await runRelease(['verify', '--no-cli', ...args], { cwd });
  return { result, report: args.includes('--json') ? jsonOf<Report>(result) : undefined };
}

const row = (report: Report, name: string) => report.artifacts.find((a) => a.name === name)!;

describe('release verify against a live deployment', () => {
  it('exits 0 and says in step when API, worker and web share one tag (v ignored)', async () => {
    const { result, report } = await verify([
      '--url',
      urls.api,
      '--worker-url',
      urls.worker,
      '--web-url',
      urls.web,
      '--json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(report!.inStep).toBe(true);
    expect(report!.findings).toEqual([]);
    expect(report!.reference).toEqual({ tag: 'v1.4.0', from: 'api' });
    expect(row(report!, 'api')).toMatchObject({
      version: 'v1.4.0',
      status: 'ok',
      source: `${urls.api}/api/version`,
    });
    expect(row(report!, 'worker')).toMatchObject({ version: '1.4.0', status: 'ok', source: urls.worker });
    expect(row(report!, 'web')).toMatchObject({
      version: 'v1.4.0',
      status: 'ok',
      source: `${urls.web}/version.json`,
    });
  });

  it('prints a table on a terminal with where each version was read', async () => {
    const { result } = await verify(['--url', urls.api, '--worker-url', urls.worker, '--web-url', urls.web]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^ARTIFACT\s+READ FROM\s+VERSION\s+STATUS\s+WHY$/m);
    expect(result.stdout).toMatch(
      new RegExp(`^worker\\s+${escapeRegExp(urls.worker)}\\s+1\\.4\\.0\\s+ok$`, 'm'),
    );
    expect(result.stdout).toMatch(/^in step at v1\.4\.0 \(from api\)$/m);
  });

  it('exits 1 when the worker is behind, naming the run-time failure and the joint upgrade', async () => {
    const { result, report } = await verify([
      '--url',
      urls.api,
      '--worker-url',
      urls.workerBehind,
      '--web-url',
      urls.web,
      '--json',
    ]);
    expect(result.code).toBe(1);
    expect(report!.findings.map((f) => f.code)).toEqual(['API_WORKER_MISMATCH']);
    const [f] = report!.findings;
    expect(f!.message).toContain('v1.3.2');
    expect(f!.message).toContain('fail at run time when the worker cannot find a method the API serialized');
    expect(f!.fix).toContain('upgrade the API and worker together');
    expect(row(report!, 'worker')).toMatchObject({ version: 'v1.3.2', status: 'drift' });
  });

  it('exits 1 when the web client was built without SERVICE_CLIENT_VERSION', async () => {
    const { result, report } = await verify(['--url', urls.api, '--web-url', urls.webUnknown, '--json']);
    expect(result.code).toBe(1);
    expect(row(report!, 'web')).toMatchObject({ version: 'unknown', status: 'drift' });
    const [f] = report!.findings;
    expect(f).toMatchObject({ code: 'VERSION_UNKNOWN', artifact: 'web' });
    expect(f!.fix).toContain('rebuild web with SERVICE_CLIENT_VERSION=v1.4.0');
  });

  it('exits 1 when the API reports unknown, and takes the tag from the others', async () => {
    const { result, report } = await verify([
      '--url',
      urls.apiUnknown,
      '--worker-url',
      urls.worker,
      '--web-url',
      urls.web,
      '--json',
    ]);
    expect(result.code).toBe(1);
    expect(row(report!, 'api')).toMatchObject({ version: 'unknown', status: 'drift' });
    expect(report!.reference).toEqual({ tag: '1.4.0', from: 'worker' });
    const [f] = report!.findings;
    expect(f).toMatchObject({ code: 'VERSION_UNKNOWN', artifact: 'api' });
    expect(f!.message).toContain('SERVICE_VERSION is unset');
    // The fix names the tag as the others report it (`1.4.0`): tags keep the project's spelling.
    expect(f!.fix).toContain('SERVICE_VERSION=1.4.0');
  });

  it('falls back to the page meta tag when version.json is not served (web on the API origin)', async () => {
    const { result, report } = await verify([
      '--url',
      urls.apiWithMetaOnlyWeb,
      '--web-url',
      urls.apiWithMetaOnlyWeb,
      '--json',
    ]);
    expect(result.code, result.stdout).toBe(0);
    expect(row(report!, 'web')).toMatchObject({
      version: 'v1.4.0',
      status: 'ok',
      source: `${urls.apiWithMetaOnlyWeb}/ (meta tag)`,
    });
  });

  it('--expect: exits 1 when the deployment is at another tag, 0 when it is at the expected one', async () => {
    const other = await verify([
      '--url',
      urls.api,
      '--worker-url',
      urls.worker,
      '--expect',
      'v1.5.0',
      '--json',
    ]);
    expect(other.result.code).toBe(1);
    expect(other.report!.findings.map((f) => [f.code, f.artifact])).toEqual([
      ['NOT_EXPECTED_TAG', 'api'],
      ['NOT_EXPECTED_TAG', 'worker'],
    ]);
    const same = await verify([
      '--url',
      urls.api,
      '--worker-url',
      urls.worker,
      '--expect',
      '1.4.0',
      '--json',
    ]);
    expect(same.result.code).toBe(0);
  });

  it('exits 3 when the API is unreachable, and still reports what it could read', async () => {
    const { result, report } = await verify([
      '--url',
      'http://127.0.0.1:9',
      '--worker-url',
      urls.worker,
      '--json',
      '--timeout',
      '3000',
    ]);
    expect(result.code).toBe(3);
    expect(report!.inStep).toBe(false);
    expect(row(report!, 'api')).toMatchObject({ status: 'unreachable', version: null });
    expect(row(report!, 'worker')).toMatchObject({ status: 'ok', version: '1.4.0' });
    expect(report!.findings[0]!.code).toBe('API_UNREACHABLE');
    // Exactly one JSON document on stdout, even though the exit code is not 0.
    expect(() => JSON.parse(result.stdout)).not.toThrow();
  });

  it('exits 3 when a probe that was asked for cannot read (worker health down)', async () => {
    const { result, report } = await verify([
      '--url',
      urls.api,
      '--worker-url',
      `${urls.api}/no-such-healthz`,
      '--json',
    ]);
    expect(result.code).toBe(3);
    expect(report!.findings.map((f) => f.code)).toEqual(['WORKER_UNREACHABLE']);
  });

  it('refuses bad flags with exit 2 and no report', async () => {
    const bad = await verify(['--url', 'not a url', '--json']);
    expect(bad.result.code).toBe(2);
    expect(jsonOf<{ error: { code: string } }>(bad.result).error.code).toBe('VERIFY_BAD_URL');
    const both = await verify(['--url', urls.api, '--worker-url', urls.worker, '--docker']);
    expect(both.result.code).toBe(2);
    const viaHost = await verify([
      '--url',
      urls.api,
      '--worker-url',
      urls.worker,
      '--docker-host',
      '/x.sock',
    ]);
    expect(viaHost.result.code).toBe(2);
    const expect_ = await verify(['--url', urls.api, '--expect', 'unknown']);
    expect(expect_.result.code).toBe(2);
    expect(expect_.result.stderr).toContain('--expect "unknown" is not a release tag');
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
