import { describe, expect, it } from 'vitest';
import { checkDeployment } from '../checks.ts';
import type { ProbeResult } from '../types.ts';

// A job (a migration) is read by its last run; these are the runs verify meets, each judged
// beside an API on v2.0.0 and a worker in step.
const api: ProbeResult = {
  name: 'api',
  source: 'http://svc/api/version',
  version: 'v2.0.0',
  minCliVersion: '1.0.0',
};
const worker: ProbeResult = { name: 'worker', source: 'container w1', version: 'v2.0.0', running: true };
const run = (over: Partial<ProbeResult>): ProbeResult => ({
  name: 'job',
  role: 'migrate',
  source: 'container abc123 (acme_migrate_1, compose service migrate)',
  version: 'v2.0.0',
  running: false,
  exitCode: 0,
  ...over,
});
const images = { api: 'acme-app', worker: 'acme-app', web: 'acme-web' };
const judge = (job: ProbeResult, expect?: string) =>
  checkDeployment({
    apiUrl: 'http://svc',
    results: [api, worker, job],
    probed: ['api', 'worker', 'job'],
    images,
    ...(expect ? { expect } : {}),
  }).findings;

describe('checkJobs', () => {
  it.each([
    ['completed on the release', run({}), [], undefined],
    ['completed, spelled without v', run({ version: '2.0.0' }), [], undefined],
    ['failed on the release', run({ exitCode: 1 }), ['JOB_FAILED'], 'drift'],
    ['failed as a Swarm task that never ran', run({ exitCode: -1 }), ['JOB_FAILED'], 'drift'],
    ['completed on the release before', run({ version: 'v1.9.0' }), ['JOB_NOT_ON_RELEASE'], 'drift'],
    ['still running', run({ running: true, exitCode: undefined }), ['JOB_RUNNING'], 'notice'],
    [
      'no run at all',
      {
        name: 'job',
        role: 'migrate',
        source: 'docker unix:///d.sock',
        version: undefined,
        error: 'no container',
      },
      ['JOB_NOT_RUN'],
      'drift',
    ],
  ] as const)('%s', (_, job, codes, severity) => {
    const findings = judge(job as ProbeResult);
    expect(findings.map((f) => f.code)).toEqual(codes);
    if (severity) expect(findings[0]!.severity).toBe(severity);
    // Never the worker's findings: a job's exited container is what a job leaves behind.
    expect(findings.map((f) => f.code).filter((c) => c.startsWith('WORKER_'))).toEqual([]);
  });

  it('says how to read the failed run and how to run it again on the release', () => {
    const [failed] = judge(
      run({ exitCode: 2, source: 'service 0123456789ab (acme_migrate) task fedcba987654' }),
    );
    expect(failed!.message).toMatch(/exited with code 2/);
    expect(failed!.fix).toMatch(/docker service logs 0123456789ab/);
    expect(failed!.fix).toMatch(/migrate at v2\.0\.0/);
  });

  it('holds the last run to --expect when given', () => {
    expect(judge(run({}), 'v2.1.0').map((f) => f.code)).toContain('JOB_NOT_ON_RELEASE');
  });

  it('keeps a job out of the reference and the API/worker pair', () => {
    const findings = judge(run({ version: 'v1.9.0', running: true, exitCode: undefined }));
    expect(findings.map((f) => f.code)).toEqual(['JOB_RUNNING']);
  });
});
