import { describe, expect, it } from 'vitest';
import { type SwarmNodeReading, type SwarmTaskReading, swarmNodeReadings } from './swarm-node-readings.ts';

const nodes: SwarmNodeReading[] = [
  { id: 'n1', name: 'node1', addr: '10.0.0.11', state: 'ready' },
  { id: 'n2', name: 'node2', addr: '10.0.0.12', state: 'ready' },
  { id: 'n3', name: 'node3', addr: '10.0.0.13', state: 'down' },
];

function task(
  id: string,
  nodeId: string | undefined,
  desired: string,
  state: string,
  version: string,
): SwarmTaskReading {
  return {
    id: id.padEnd(25, '0'),
    nodeId,
    desired,
    state,
    image: `reg/worker:${version}@sha256:${'a'.repeat(64)}`,
    env: version,
  };
}

const readings = (tasks: SwarmTaskReading[]) =>
  swarmNodeReadings({
    name: 'worker',
    service: 'app_worker',
    tasks,
    nodes,
    versionOf: (t) => ({ version: t.env ?? 'unknown', from: 'SERVICE_VERSION' }),
  });

describe('swarmNodeReadings', () => {
  it('adds nothing when every task runs where Swarm wants it, on ready nodes', () => {
    expect(
      readings([task('a', 'n1', 'running', 'running', 'v2'), task('b', 'n2', 'running', 'running', 'v2')]),
    ).toEqual([]);
  });

  it('a task on a down node is unknown, naming the node and what it last ran', () => {
    const [r] = readings([task('c', 'n3', 'shutdown', 'running', 'v1')]);
    expect(r?.version).toBe('unknown');
    expect(r?.source).toContain('node3 (10.0.0.13)');
    expect(r?.detail).toMatch(/^node3 is down: what it runs is unknown; it last ran v1/);
    expect(r?.running).toBe(true);
  });

  it('a task still running on a ready node although Swarm wants it gone reads as its own version', () => {
    const [r] = readings([task('d', 'n2', 'shutdown', 'running', 'v1')]);
    expect(r?.version).toBe('v1');
    expect(r?.detail).toMatch(/still running on node2 although Swarm wants it shutdown/);
  });

  it('ignores finished tasks, unplaced tasks and tasks of unknown nodes', () => {
    expect(
      readings([
        task('e', 'n3', 'shutdown', 'shutdown', 'v1'),
        task('f', undefined, 'running', 'pending', 'v2'),
        task('g', 'n9', 'running', 'running', 'v2'),
      ]),
    ).toEqual([]);
  });

  describe('a replica whose task on a lost node was given up, its replacement not placed', () => {
    const inSlot = (t: SwarmTaskReading, slot: number, index: number): SwarmTaskReading => ({
      ...t,
      slot,
      index,
    });

    it('is read from the lost node: unknown, with what it last ran', () => {
      const out = readings([
        inSlot(task('h', 'n1', 'running', 'running', 'v2'), 1, 30),
        inSlot(task('i', 'n3', 'shutdown', 'shutdown', 'v1'), 3, 20),
        inSlot(task('j', undefined, 'running', 'pending', 'v2'), 3, 31),
      ]);
      expect(out).toHaveLength(1);
      expect(out[0]?.version).toBe('unknown');
      expect(out[0]?.source).toContain('node3 (10.0.0.13)');
      expect(out[0]?.detail).toMatch(
        /^node3 is down: what it runs is unknown; it last ran v1 \(SERVICE_VERSION, task shutdown; its replacement is not running on any node\)/,
      );
    });

    it("names the newest of the lost node's tasks in that replica", () => {
      const [r] = readings([
        inSlot(task('k', 'n3', 'shutdown', 'failed', 'v0'), 2, 5),
        inSlot(task('l', 'n3', 'shutdown', 'shutdown', 'v1'), 2, 20),
        inSlot(task('m', undefined, 'running', 'pending', 'v2'), 2, 31),
      ]);
      expect(r?.detail).toContain('it last ran v1');
    });

    it('adds nothing once another node runs the replica, nor for a lost node long replaced', () => {
      expect(
        readings([
          inSlot(task('n', 'n3', 'shutdown', 'shutdown', 'v1'), 2, 20),
          inSlot(task('o', 'n2', 'running', 'running', 'v2'), 2, 31),
        ]),
      ).toEqual([]);
    });

    it('reads a lost node once when it also has a current task in the replica', () => {
      const out = readings([
        inSlot(task('p', 'n3', 'shutdown', 'shutdown', 'v1'), 2, 20),
        inSlot(task('q', 'n3', 'running', 'running', 'v2'), 2, 31),
      ]);
      expect(out).toHaveLength(1);
      expect(out[0]?.detail).toContain('it last ran v2 (SERVICE_VERSION, task running)');
    });
  });
});
