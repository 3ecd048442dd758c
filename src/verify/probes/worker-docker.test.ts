import { describe, expect, it } from 'vitest';
import type { ImageService } from '../../deployment-engines/swarm/swarm-image-services.ts';
import type { NodeView } from '../../deployment-engines/swarm/swarm-views.ts';
import { workerVersionOf } from '../../docker-client/container-facts.ts';
import { serviceReadings } from './worker-docker.ts';

describe('workerVersionOf', () => {
  it('prefers SERVICE_VERSION, then the OCI label, then a version tag', () => {
    expect(workerVersionOf({ env: 'v2', label: 'v1', tag: 'v0' }).version).toBe('v2');
    expect(workerVersionOf({ label: '1.0.0', tag: 'v0.9.0' })).toEqual({
      version: '1.0.0',
      from: 'label org.opencontainers.image.version',
    });
    expect(workerVersionOf({ tag: 'v0.9.0' }).version).toBe('v0.9.0');
  });

  it('says unknown when only a floating tag is there', () => {
    expect(workerVersionOf({ tag: 'latest' }).version).toBe('unknown');
  });
});

describe('serviceReadings', () => {
  const digest = `sha256:${'b'.repeat(64)}`;
  const service: ImageService = {
    id: 's'.repeat(25),
    name: 'app_worker',
    reference: `reg/acme/worker:v2.0.0@${digest}`,
    env: 'v2.0.0',
    envName: 'ACME_VERSION',
    argv: ['node', 'worker.js'],
    label: undefined,
    digest,
    replicas: 2,
    tasks: [
      // On a ready node, where Swarm wants it: the spec already says it.
      {
        id: 't1'.padEnd(25, '0'),
        nodeId: 'n1',
        desired: 'running',
        state: 'running',
        since: 0,
        image: 'reg/acme/worker:v2.0.0',
        env: ['ACME_VERSION=v2.0.0'],
        slot: 1,
        versionIndex: 10,
      },
      // On a node the manager lost: what it runs is unknown, and it last ran v1.
      {
        id: 't2'.padEnd(25, '0'),
        nodeId: 'n2',
        desired: 'running',
        state: 'running',
        since: 0,
        image: 'reg/acme/worker:v1.0.0',
        env: ['OTHER=x', 'ACME_VERSION=v1.0.0'],
        slot: 2,
        versionIndex: 9,
      },
    ],
  };
  const nodes: NodeView[] = [
    { id: 'n1', name: 'node1', addr: '10.0.0.11', state: 'ready', availability: 'active' },
    { id: 'n2', name: 'node2', addr: '10.0.0.12', state: 'down', availability: 'active' },
  ];

  it("reads the spec, then a lost node's task with the version it last ran from the asked variable", () => {
    const [own, lost, ...rest] = serviceReadings(service, nodes, ['ACME_VERSION', 'SERVICE_VERSION']);
    expect(rest).toEqual([]);
    expect(own).toMatchObject({
      source: `service ${'s'.repeat(12)} (app_worker)`,
      version: 'v2.0.0',
      detail: 'ACME_VERSION; 2 replicas',
      digest,
      running: true,
      serviceId: service.id,
      argv: ['node', 'worker.js'],
    });
    expect(lost).toMatchObject({
      source: 'service app_worker task t20000000000 on node2 (10.0.0.12)',
      version: 'unknown',
      serviceId: service.id,
      argv: ['node', 'worker.js'],
    });
    expect(lost?.detail).toContain('node2 is down: what it runs is unknown; it last ran v1.0.0');
  });

  it('adds no per-node reading when the swarm is one node (the tasks are not read then)', () => {
    expect(serviceReadings({ ...service, tasks: [] }, [], ['SERVICE_VERSION'])).toHaveLength(1);
  });
});
