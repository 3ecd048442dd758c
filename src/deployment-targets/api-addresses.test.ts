import { describe, expect, it } from 'vitest';
import { apiAddresses } from './api-addresses.ts';

const roles = [
  { artifact: 'api', role: 'api' as const, command: ['node', 'server.js'] },
  { artifact: 'worker', role: 'worker' as const, command: ['node', 'worker.js'] },
  { artifact: 'scheduler', role: 'worker' as const, command: ['node', 'worker.js', '--beat'] },
];

describe('apiAddresses', () => {
  it('an image of the API alone: every port of its workloads, each once, in order', () => {
    const found = apiAddresses(
      [
        { argv: ['node', 'server.js'], ports: [9090, 8080] },
        { argv: ['node', 'server.js'], ports: [8080] },
      ],
      [roles[0]!],
      'api',
      '127.0.0.1',
    );
    expect(found).toEqual(['http://127.0.0.1:8080', 'http://127.0.0.1:9090']);
  });

  it('one image in three roles: only the containers running the API command count (sh -c too)', () => {
    const found = apiAddresses(
      [
        { argv: ['sh', '-c', 'node server.js'], ports: [8080] },
        { argv: ['node', 'worker.js'], ports: [3001] },
        { argv: ['node', 'worker.js', '--beat'], ports: [3002] },
      ],
      roles,
      'api',
      'engine.internal',
    );
    expect(found).toEqual(['http://engine.internal:8080']);
  });

  it('no API workload, or one that publishes nothing: no address', () => {
    expect(apiAddresses([{ argv: ['node', 'worker.js'], ports: [3001] }], roles, 'api', '127.0.0.1')).toEqual(
      [],
    );
    expect(apiAddresses([{ argv: ['node', 'server.js'], ports: [] }], roles, 'api', '127.0.0.1')).toEqual([]);
  });

  it('an IPv6 engine host is bracketed', () => {
    expect(apiAddresses([{ argv: [], ports: [80] }], [roles[0]!], 'api', '::1')).toEqual(['http://[::1]:80']);
  });
});
