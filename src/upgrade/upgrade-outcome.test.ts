import { describe, expect, it } from 'vitest';
import { planSwarmUpgrade, servicesToRestore } from './swarm/swarm-plan.ts';
import type { RunningService } from './swarm/swarm-types.ts';
import { decideOutcome } from './upgrade-outcome.ts';

const svc = (role: RunningService['role']): RunningService => ({
  role,
  name: `svc_${role}`,
  id: role,
  versionIndex: 1,
  spec: { TaskTemplate: { ContainerSpec: { Image: `r/${role}:v1@sha256:${'a'.repeat(64)}` } } },
  image: `r/${role}:v1@sha256:${'a'.repeat(64)}`,
  digest: `sha256:${'a'.repeat(64)}`,
  version: 'v1.0.0',
  versionSource: 'test',
  networks: [],
});
const plan = planSwarmUpgrade(
  'v2.0.0',
  [svc('api'), svc('worker'), svc('web')],
  (['api', 'worker', 'web'] as const).map((role) => ({
    role,
    artifact: role,
    repository: `r/${role}`,
    tag: 'v2.0.0',
    digest: `sha256:${'b'.repeat(64)}`,
  })),
);
const base = { plan, restores: [], proof: undefined, inStepBefore: true, fromTag: 'v1.0.0' };
const failure = { kind: 'task' as const, role: 'web' as const, reason: 'svc_web: task failed' };

describe('servicesToRestore', () => {
  it('restores every touched service, API and worker with a failing web', () => {
    const names = (roles: string[]) =>
      new Set(plan.services.filter((s) => roles.includes(s.role)).map((s) => s.name));
    expect(servicesToRestore(plan, names(['web', 'api', 'worker'])).map((s) => s.role)).toEqual([
      'api',
      'worker',
      'web',
    ]);
    expect(servicesToRestore(plan, names(['worker'])).map((s) => s.role)).toEqual(['worker']);
  });
});

describe('decideOutcome', () => {
  it('0 when upgraded, 1 when rolled back and in step on the old tag', () => {
    expect(decideOutcome({ ...base, failure: undefined })).toMatchObject({ exitCode: 0, status: 'upgraded' });
    const back = decideOutcome({
      ...base,
      failure,
      restores: [{ role: 'api', name: 'svc_api', status: 'restored', detail: '' }],
      proof: { inStep: true, tag: 'v1.0.0', findings: [] },
    });
    expect(back).toMatchObject({ exitCode: 1, status: 'rolled-back' });
    expect(back.verdict).toBe('upgrade to v2.0.0 failed; rolled back svc_api: in step on v1.0.0');
  });

  it('3 when a service could not be put back, naming it and its state', () => {
    const out = decideOutcome({
      ...base,
      failure,
      restores: [
        { role: 'api', name: 'svc_api', status: 'restored', detail: '' },
        {
          role: 'worker',
          name: 'svc_worker',
          status: 'failed',
          detail: 'did not converge: 0 of 1 task(s) running',
        },
      ],
    });
    expect(out).toMatchObject({ exitCode: 3, status: 'rollback-failed' });
    expect(out.verdict).toContain('svc_worker (worker) did not converge: 0 of 1 task(s) running');
  });

  it('3 when restored but not in step although it was before; 1 when it was already out of step', () => {
    const restores = [{ role: 'api' as const, name: 'svc_api', status: 'restored' as const, detail: '' }];
    const proof = { inStep: false, tag: 'v1.0.0', findings: ['API_WORKER_MISMATCH: ...'] };
    expect(decideOutcome({ ...base, failure, restores, proof }).exitCode).toBe(3);
    expect(decideOutcome({ ...base, failure, restores, proof, inStepBefore: false })).toMatchObject({
      exitCode: 1,
      verdict: expect.stringContaining('not in step, as before the upgrade'),
    });
  });

  it('1, naming the node, when the only findings after the rollback are those of a lost node', () => {
    const restores = [{ role: 'api' as const, name: 'svc_api', status: 'restored' as const, detail: '' }];
    const lostOnly = {
      inStep: false,
      tag: 'v1.0.0',
      findings: ['node3 (10.0.0.3) is down: what it runs is unknown; it last ran svc_api v2.0.0'],
      lostNodes: ['node3'],
    };
    expect(decideOutcome({ ...base, failure, restores, proof: lostOnly })).toMatchObject({
      exitCode: 1,
      status: 'rolled-back',
      verdict:
        'upgrade to v2.0.0 failed; rolled back svc_api: in step on v1.0.0 on every live node; node3 is not ready: what it runs is unknown until it returns',
    });
    // A finding beyond the lost node's is still a failed rollback.
    const more = { ...lostOnly, findings: [...lostOnly.findings, 'API_WORKER_MISMATCH: node1 ...'] };
    expect(decideOutcome({ ...base, failure, restores, proof: more }).exitCode).toBe(3);
  });
});
