import { describe, expect, it } from 'vitest';
import {
  API_WORKER_CONSEQUENCE,
  type CheckInput,
  checkDeployment,
  checkVersionQuality,
  checkWorkerEvidence,
  referenceOf,
} from './checks.ts';
import type { ArtifactName, ProbeResult } from './types.ts';

const URL = 'http://127.0.0.1:8080';
const images = { api: 'service-api', worker: 'service-worker', web: 'service-web' };

const api = (version: string, min = '1.0.0'): ProbeResult => ({
  name: 'api',
  source: `${URL}/api/version`,
  version,
  minCliVersion: min,
});
const worker = (version: string, source = 'http://127.0.0.1:8081/healthz'): ProbeResult => ({
  name: 'worker',
  source,
  version,
});
const web = (version: string): ProbeResult => ({
  name: 'web',
  source: 'http://127.0.0.1:8082/version.json',
  version,
});
const cli = (version: string, source = '/usr/local/bin/svc'): ProbeResult => ({
  name: 'cli',
  source,
  version,
});

function check(results: ProbeResult[], extra: Partial<CheckInput> = {}) {
  const probed = [...new Set(results.map((r) => r.name))] as ArtifactName[];
  return checkDeployment({ apiUrl: URL, results, probed, images, ...extra });
}
const codes = (results: ProbeResult[], extra: Partial<CheckInput> = {}) =>
  check(results, extra).findings.map((f) => f.code);

describe('checkDeployment: one shared tag', () => {
  it('is in step when every artifact has the same tag, a leading v ignored', () => {
    const { findings, reference } = check([api('v1.4.0'), worker('1.4.0'), web('v1.4.0'), cli('1.4.0')]);
    expect(findings).toEqual([]);
    expect(reference).toEqual({ tag: 'v1.4.0', from: 'api' });
  });

  it('accepts one shared rc or describe version as in step', () => {
    expect(codes([api('v2.0.0-rc.1'), worker('2.0.0-rc.1'), web('v2.0.0-rc.1'), cli('2.0.0-rc.1')])).toEqual(
      [],
    );
    const describe = 'v1.4.0-3-gabcdef0';
    expect(codes([api(describe), worker(describe), web(describe), cli(describe)])).toEqual([]);
  });

  it('names the spec consequence and the joint upgrade when the worker is behind the API', () => {
    const { findings } = check([api('v1.4.0'), worker('v1.3.2'), web('v1.4.0'), cli('v1.4.0')]);
    expect(findings).toHaveLength(1);
    const [f] = findings;
    expect(f!.code).toBe('API_WORKER_MISMATCH');
    expect(f!.message).toContain(API_WORKER_CONSEQUENCE);
    expect(f!.message).toContain('v1.3.2');
    expect(f!.fix).toMatch(/upgrade the API and worker together/);
    expect(f!.fix).toContain('v1.4.0');
    expect(f!.artifact).toBe('worker');
  });

  it('reports each of several worker readings that differ', () => {
    const { findings } = check([
      api('v1.4.0'),
      worker('v1.4.0', 'container a'),
      worker('v1.3.0', 'container b'),
    ]);
    expect(findings.map((f) => [f.code, f.source])).toEqual([['API_WORKER_MISMATCH', 'container b']]);
  });

  it('tells to rebuild the web client with SERVICE_CLIENT_VERSION when it differs', () => {
    const { findings } = check([api('v1.4.0'), web('v1.3.0')]);
    expect(findings.map((f) => f.code)).toEqual(['TAG_MISMATCH']);
    expect(findings[0]!.fix).toContain('rebuild web with SERVICE_CLIENT_VERSION=v1.4.0');
  });

  it('tells to svc update when the CLI is above the minimum but at another tag', () => {
    const { findings } = check([api('v1.4.0'), cli('1.3.0')]);
    expect(findings.map((f) => f.code)).toEqual(['TAG_MISMATCH']);
    expect(findings[0]!.fix).toBe(`svc update --url ${URL}`);
  });
});

describe('checkDeployment: versions that cannot be in step', () => {
  it('flags unknown per artifact with the fix for that artifact', () => {
    const { findings } = check([api('unknown'), worker('v1.4.0'), web('unknown'), cli('unknown')]);
    expect(findings.map((f) => [f.code, f.artifact])).toEqual([
      ['VERSION_UNKNOWN', 'api'],
      ['VERSION_UNKNOWN', 'web'],
      ['VERSION_UNKNOWN', 'cli'],
    ]);
    // The worker's tag is the only readable one, so the fixes name it.
    expect(findings[0]!.message).toContain('SERVICE_VERSION is unset');
    expect(findings[0]!.fix).toContain('SERVICE_VERSION=v1.4.0');
    expect(findings[1]!.fix).toContain('rebuild web with SERVICE_CLIENT_VERSION=v1.4.0');
    expect(findings[2]!.fix).toBe(`svc update --url ${URL}`);
  });

  it('flags a bare hash, a dirty build and garbage', () => {
    expect(checkVersionQuality(worker('abcdef1'), ctx())[0]!.code).toBe('VERSION_BARE_HASH');
    expect(checkVersionQuality(worker('v1.4.0-dirty'), ctx())[0]!.code).toBe('VERSION_DIRTY');
    expect(checkVersionQuality(worker('v1.4.0-2-gabcdef0-dirty'), ctx())[0]!.code).toBe('VERSION_DIRTY');
    expect(checkVersionQuality(worker('not a version'), ctx())[0]!.code).toBe('VERSION_INVALID');
    expect(checkVersionQuality(worker('\\u001b[31m'), ctx())[0]!.code).toBe('VERSION_INVALID');
    expect(checkVersionQuality(worker('v1.4.0'), ctx())).toEqual([]);
  });

  it('never treats a dirty API as the reference, and says dirty rather than mismatch', () => {
    expect(codes([api('v1.4.0-dirty'), worker('v1.4.0'), web('v1.4.0')])).toEqual(['VERSION_DIRTY']);
  });
});

describe('checkDeployment: the operator CLI', () => {
  it('blocks a CLI below min_cli_version with svc update', () => {
    const { findings } = check([api('v2.0.0', '2.0.0'), cli('1.9.9')]);
    expect(findings.map((f) => f.code)).toEqual(['CLI_BELOW_MINIMUM']);
    expect(findings[0]!.message).toContain('1.9.9');
    expect(findings[0]!.message).toContain('2.0.0');
    expect(findings[0]!.fix).toContain(`svc update --url ${URL}`);
  });

  it('lets an rc of the release that raised the minimum pass the minimum', () => {
    expect(codes([api('v2.0.0-rc.2', '2.0.0'), cli('v2.0.0-rc.2')])).toEqual([]);
  });

  it('names both paths and which to remove when an older svc is first on PATH', () => {
    const { findings } = check([
      api('v2.0.0', '2.0.0'),
      cli('1.0.0', '/home/op/.local/bin/svc'),
      cli('2.0.0', '/usr/local/bin/svc'),
    ]);
    expect(findings.map((f) => f.code)).toEqual(['CLI_SHADOWED']);
    const [f] = findings;
    expect(f!.message).toContain('/home/op/.local/bin/svc (1.0.0)');
    expect(f!.message).toContain('/usr/local/bin/svc (2.0.0)');
    expect(f!.fix).toMatch(/^remove \/home\/op\/\.local\/bin\/svc/);
  });

  it('also calls it shadowing when the first is above the minimum but at another tag', () => {
    expect(codes([api('v2.1.0'), cli('2.0.0', '/a/svc'), cli('v2.1.0', '/b/svc')])).toEqual(['CLI_SHADOWED']);
  });

  it('ignores a later copy when the first svc is the right one', () => {
    expect(codes([api('v2.1.0'), cli('2.1.0', '/a/svc'), cli('1.0.0', '/b/svc')])).toEqual([]);
  });

  it('reports no svc on PATH when the CLI probe ran and found none', () => {
    const { findings } = check([api('v1.0.0')], { probed: ['api', 'cli'] });
    expect(findings.map((f) => f.code)).toEqual(['CLI_NOT_FOUND']);
    expect(findings[0]!.fix).toContain(`npm install -g ${URL}/api/cli/download/service-cli.tar.gz`);
  });

  it('reports an API whose min_cli_version is not X.Y.Z', () => {
    expect(codes([api('v1.0.0', 'v1.0')])).toEqual(['MIN_CLI_VERSION_INVALID']);
  });

  it('takes a missing min_cli_version for a notice only where the config declares no CLI', () => {
    const without: ProbeResult = { name: 'api', source: `${URL}/api/version`, version: '2026.7.0' };
    const severities = (extra: Partial<CheckInput>) =>
      check([without], extra).findings.map((f) => [f.code, f.severity]);
    expect(severities({})).toEqual([['MIN_CLI_VERSION_INVALID', 'drift']]);
    const cli = { program: 'acme', installCommand: 'npm i -g {url}', archiveName: 'acme.tgz' };
    expect(severities({ naming: { cli } })).toEqual([['MIN_CLI_VERSION_INVALID', 'drift']]);
    expect(severities({ naming: {} })).toEqual([['MIN_CLI_VERSION_INVALID', 'notice']]);
    // Served but malformed stays drift, CLI or not.
    expect(check([api('2026.7.0', 'v1.0')], { naming: {} }).findings[0]!.severity).toBe('drift');
    expect(check([without], { naming: {} }).findings[0]!.fix).not.toContain('src/service');
  });
});

describe('checkDeployment: --expect', () => {
  it('requires every artifact to equal the expected tag', () => {
    const { findings, reference } = check([api('v1.4.0'), worker('v1.4.0'), web('v1.5.0')], {
      expect: '1.5.0',
    });
    expect(reference).toEqual({ tag: '1.5.0', from: '--expect' });
    expect(findings.map((f) => [f.code, f.artifact])).toEqual([
      ['NOT_EXPECTED_TAG', 'api'],
      ['NOT_EXPECTED_TAG', 'worker'],
    ]);
    expect(findings[0]!.fix).toContain('service-api:1.5.0');
  });

  it('is in step when everything equals it', () => {
    expect(codes([api('v1.5.0'), worker('1.5.0'), web('v1.5.0')], { expect: 'v1.5.0' })).toEqual([]);
  });
});

describe('checkDeployment: reading failures', () => {
  it('marks an unreachable API as unreachable and still checks the rest', () => {
    const down: ProbeResult = {
      name: 'api',
      source: `${URL}/api/version`,
      version: undefined,
      error: 'connection refused',
    };
    const { findings, reference } = check([down, worker('v1.4.0'), web('v1.3.0')]);
    expect(findings.map((f) => [f.code, f.severity])).toEqual([
      ['API_UNREACHABLE', 'unreachable'],
      ['TAG_MISMATCH', 'drift'],
    ]);
    // With no API, the readings vote; the tie goes to the worker, the first one read.
    expect(reference).toEqual({ tag: 'v1.4.0', from: 'worker' });
  });

  it('gives no reference when nothing is comparable', () => {
    expect(referenceOf([api('unknown'), worker('abcdef1')])).toBeUndefined();
  });

  it('treats stopped worker containers as notices beside a running one, unreachable when alone', () => {
    const stopped = { ...worker('v1.2.0', 'container abc (old)'), running: false };
    expect(
      check([api('v1.4.0'), worker('v1.4.0', 'container def (new)'), stopped]).findings.map((f) => [
        f.code,
        f.severity,
      ]),
    ).toEqual([['WORKER_STOPPED', 'notice']]);
    expect(codes([api('v1.4.0'), stopped])).toEqual(['WORKER_NOT_RUNNING']);
  });

  it('says nothing of a one-shot job that completed, and still wants a worker that runs', () => {
    const done = { ...worker('v1.4.0', 'container abc (init)'), running: false, finished: true };
    expect(codes([api('v1.4.0'), worker('v1.4.0', 'container def (worker)'), done])).toEqual([]);
    expect(codes([api('v1.4.0'), done])).toEqual(['WORKER_NOT_RUNNING']);
  });
});

describe('checkWorkerEvidence', () => {
  it('flags SERVICE_VERSION that contradicts the image label', () => {
    const r = {
      ...worker('v1.4.0', 'container abc (w)'),
      evidence: { env: 'v1.4.0', label: '1.3.0', tag: 'v1.3.0' },
    };
    expect(checkWorkerEvidence(r).map((f) => f.code)).toEqual(['WORKER_ENV_OVERRIDES_IMAGE']);
  });

  it('accepts agreeing evidence and ignores floating tags', () => {
    const agree = { ...worker('v1.4.0'), evidence: { env: 'v1.4.0', label: '1.4.0', tag: 'v1.4.0' } };
    const floating = { ...worker('v1.4.0'), evidence: { env: 'v1.4.0', tag: 'latest' } };
    expect(checkWorkerEvidence(agree)).toEqual([]);
    expect(checkWorkerEvidence(floating)).toEqual([]);
  });
});

function ctx() {
  return { apiUrl: URL, images, tag: 'v1.4.0' };
}

describe('several web clients', () => {
  const admin = (version: string | undefined, error?: string): ProbeResult => ({
    name: 'web',
    role: 'admin',
    source: 'http://127.0.0.1:8083/version.json',
    version,
    ...(error ? { error } : {}),
  });
  const naming = { clientVariable: 'VITE_ACME_VERSION', webImages: { web: 'acme-web', admin: 'acme-admin' } };

  it('names the web client that drifted, and its own image in the fix', () => {
    const { findings } = check([api('v1.3.0'), web('v1.3.0'), admin('v1.2.0')], { naming });
    expect(findings).toEqual([
      expect.objectContaining({
        code: 'TAG_MISMATCH',
        message: 'web admin at http://127.0.0.1:8083/version.json is v1.2.0, but the api is v1.3.0',
        fix: 'rebuild admin with VITE_ACME_VERSION=v1.3.0 (or deploy the acme-admin:v1.3.0 image)',
        artifact: 'web',
      }),
    ]);
  });

  it('says which web client could not be read, or says unknown, and where', () => {
    const unreachable = check([api('v1.3.0'), admin(undefined, 'connect ECONNREFUSED')], { naming });
    expect(unreachable.findings[0]).toMatchObject({
      code: 'WEB_UNREACHABLE',
      message:
        'web admin: could not read the version at http://127.0.0.1:8083/version.json: connect ECONNREFUSED',
      fix: 'check that admin is served at http://127.0.0.1:8083 (--web-url admin=<url>) and that its build emitted version.json',
    });
    const unknown = check([api('v1.3.0'), admin('unknown')], { naming });
    expect(unknown.findings[0]).toMatchObject({
      code: 'VERSION_UNKNOWN',
      message: expect.stringContaining(
        'the web client admin at http://127.0.0.1:8083/version.json reports "unknown"',
      ),
      fix: 'rebuild admin with VITE_ACME_VERSION=v1.3.0 (or deploy the acme-admin:v1.3.0 image)',
    });
  });

  it('keeps the one web client as it was', () => {
    const { findings } = check([api('v1.3.0'), web('v1.2.0')]);
    expect(findings[0]).toMatchObject({
      message: 'web at http://127.0.0.1:8082/version.json is v1.2.0, but the api is v1.3.0',
      fix: 'rebuild web with SERVICE_CLIENT_VERSION=v1.3.0 (or deploy the service-web:v1.3.0 image)',
    });
  });
});
