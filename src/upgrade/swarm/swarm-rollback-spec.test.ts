import { describe, expect, it } from 'vitest';
import { previousSpecAgain, rollbackSpec } from './swarm-rollback-spec.ts';
import type { ServiceSpec } from './swarm-types.ts';
import { SWARM_DEFAULT_UPDATE_CONFIG } from './swarm-types.ts';

const previous = (extra: Partial<ServiceSpec> = {}): ServiceSpec => ({
  Name: 'svc_api',
  Labels: { team: 'core' },
  TaskTemplate: {
    ContainerSpec: { Image: 'reg/acme/service-api:v1.0.0@sha256:old', Env: ['PORT=8080'] },
    RestartPolicy: { Condition: 'on-failure' },
  },
  Mode: { Replicated: { Replicas: 2 } },
  ...extra,
});

describe('rollbackSpec', () => {
  it('keeps the whole previous spec, goes on past a failed task, in the order the service allows', () => {
    const before = previous({
      UpdateConfig: { Parallelism: 2, Order: 'start-first', FailureAction: 'pause', Monitor: 7_000_000_000 },
    });
    const spec = rollbackSpec(before, 'stop-first');
    expect(spec).toEqual({
      ...before,
      UpdateConfig: {
        Parallelism: 2,
        Order: 'stop-first',
        FailureAction: 'continue',
        Monitor: 7_000_000_000,
      },
    });
    // A copy: the previous spec is what the service gets back afterwards.
    expect(before.UpdateConfig?.FailureAction).toBe('pause');
    spec.TaskTemplate!.ContainerSpec!.Env = [];
    expect(before.TaskTemplate?.ContainerSpec?.Env).toEqual(['PORT=8080']);
  });

  it("a spec with no update config gets Swarm's defaults, not the engine's zero values (parallelism 0 = all at once)", () => {
    expect(rollbackSpec(previous(), 'start-first').UpdateConfig).toEqual({
      ...SWARM_DEFAULT_UPDATE_CONFIG,
      Order: 'start-first',
      FailureAction: 'continue',
    });
  });
});

describe('previousSpecAgain', () => {
  it('done: the service has exactly the previous spec (key order aside)', () => {
    const before = previous();
    const { Labels, ...rest } = before;
    expect(previousSpecAgain({ ...rest, Labels }, before)).toBe('done');
  });

  it('write: only the update config differs, the part the rollback changed', () => {
    const before = previous();
    expect(previousSpecAgain(rollbackSpec(before, 'stop-first'), before)).toBe('write');
    const own = previous({ UpdateConfig: { FailureAction: 'rollback', Order: 'start-first' } });
    expect(previousSpecAgain(rollbackSpec(own, 'stop-first'), own)).toBe('write');
  });

  it('changed: anything else differs, someone changed the service meanwhile', () => {
    const before = previous();
    const theirs = rollbackSpec(before, 'stop-first');
    theirs.Mode = { Replicated: { Replicas: 5 } };
    expect(previousSpecAgain(theirs, before)).toBe('changed');
    expect(
      previousSpecAgain(
        previous({
          TaskTemplate: { ContainerSpec: { Image: 'reg/acme/service-api:v3.0.0@sha256:x' } },
        }),
        before,
      ),
    ).toBe('changed');
  });
});
