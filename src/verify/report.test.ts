import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkDeployment } from './checks.ts';
import { buildReport, renderReport, reportJson, WHY } from './report.ts';
import type { ProbeResult } from './types.ts';

const URL = 'http://127.0.0.1:8080';
const images = { api: 'service-api', worker: 'service-worker', web: 'service-web' };

function report(
  results: ProbeResult[],
  notChecked = [{ name: 'web' as const, reason: 'pass --web-url <url> to read it' }],
) {
  const probed = { results, probed: [...new Set(results.map((r) => r.name))], notChecked, digests: [] };
  return buildReport(
    { url: URL },
    probed,
    checkDeployment({ apiUrl: URL, results, probed: probed.probed, images }),
    5,
  );
}

describe('report', () => {
  const apiOk: ProbeResult = {
    name: 'api',
    source: `${URL}/api/version`,
    version: 'v1.4.0',
    minCliVersion: '1.0.0',
  };
  const workerBehind: ProbeResult = {
    name: 'worker',
    source: 'http://127.0.0.1:8081/healthz',
    version: 'v1.3.0',
  };

  it('exits 0 and says in step when everything agrees', () => {
    const r = report([apiOk, { ...workerBehind, version: '1.4.0' }]);
    expect(r.exitCode).toBe(0);
    expect(r.inStep).toBe(true);
    const text = renderReport(r).join('\n');
    expect(text).toMatch(/^ARTIFACT\s+READ FROM\s+VERSION\s+STATUS\s+WHY$/m);
    expect(text).toMatch(/^web\s+-\s+-\s+not checked\s+pass --web-url <url> to read it$/m);
    expect(text).toContain('in step at v1.4.0 (from api)');
  });

  it('exits 1 on drift, with the row marked and the fix printed', () => {
    const r = report([apiOk, workerBehind]);
    expect(r.exitCode).toBe(1);
    const text = renderReport(r).join('\n');
    expect(text).toMatch(
      /^worker\s+http:\/\/127\.0\.0\.1:8081\/healthz\s+v1\.3\.0\s+DRIFT\s+differs from the API$/m,
    );
    expect(text).toContain('x API_WORKER_MISMATCH:');
    expect(text).toContain('    fix: upgrade the API and worker together');
  });

  it('exits 3 when the API cannot be read, even beside drift', () => {
    const down: ProbeResult = { ...apiOk, version: undefined, error: 'connection refused' };
    const r = report([down, workerBehind, { ...workerBehind, source: 'b', version: 'v1.4.0' }]);
    expect(r.exitCode).toBe(3);
    expect(renderReport(r).join('\n')).toMatch(/^api .* UNREACHABLE\s+unreachable: connection refused$/m);
  });

  it('gives the JSON shape docs/reference/commands/verify.md documents', () => {
    const json = reportJson(report([apiOk, workerBehind]));
    expect(json).toMatchObject({
      inStep: false,
      exitCode: 1,
      url: URL,
      reference: { tag: 'v1.4.0', from: 'api' },
    });
    expect(json.artifacts).toEqual([
      { name: 'api', version: 'v1.4.0', source: `${URL}/api/version`, status: 'ok', why: '' },
      expect.objectContaining({ name: 'worker', version: 'v1.3.0', status: 'drift' }),
      { name: 'web', version: null, source: '-', status: 'skipped', why: 'pass --web-url <url> to read it' },
    ]);
    expect(json.findings[0]).toEqual(
      expect.objectContaining({ code: 'API_WORKER_MISMATCH', severity: 'drift', artifact: 'worker' }),
    );
    expect(typeof json.findings[0]!.fix).toBe('string');
  });
});

describe('the "why" labels', () => {
  it('name every finding code a check file gives, in words (not the code lower-cased)', () => {
    const dir = join(dirname(fileURLToPath(import.meta.url)), 'checks');
    const files = readdirSync(dir).filter((f) => /^check-.*\.ts$/.test(f) && !f.endsWith('.test.ts'));
    const codes = new Set<string>(['API_UNREACHABLE', 'WORKER_UNREACHABLE', 'WEB_UNREACHABLE']);
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const m of text.matchAll(/(?:code:\s*|\?\s*|:\s*)'([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)'/g))
        codes.add(m[1]!);
    }
    expect(codes.size).toBeGreaterThan(40);
    expect([...codes].filter((code) => !WHY[code])).toEqual([]);
  });
});
