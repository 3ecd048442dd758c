import { describe, expect, it } from 'vitest';
import { nodeReport, nodeTrouble, tagOf, UNPLACED } from './swarm-node-report.ts';
import type { NodeView, TaskView } from './swarm-types.ts';

const node = (id: string, state = 'ready'): NodeView => ({
  id,
  name: `node${id}`,
  addr: `10.0.0.${id}`,
  state,
  availability: 'active',
});
const IMG = (tag: string) => `reg/acme/service-api:${tag}@sha256:${'a'.repeat(64)}`;
const task = (
  id: string,
  tag: string,
  state: string,
  nodeId: string | undefined,
  extra: Partial<TaskView> = {},
) => ({
  service: 'app_api',
  task: {
    id: id.padEnd(25, '0'),
    image: IMG(tag),
    desired: 'running',
    state,
    since: 0,
    nodeId,
    ...extra,
  } as TaskView,
});

describe('nodeReport', () => {
  it('groups the tasks that matter by node, sorted, and the unplaced ones last', () => {
    const report = nodeReport(
      [node('2'), node('1', 'down')],
      [
        task('b', 'v2.0.0', 'running', '2'),
        task('a', 'v1.0.0', 'running', '1'),
        task('old', 'v0.9.0', 'shutdown', '2', { desired: 'shutdown' }),
        task('p', 'v2.0.0', 'pending', undefined, { message: 'no suitable node' }),
      ],
    );
    expect(
      report.map((r) => [r.node, r.state, r.tasks.map((t) => `${t.task.slice(0, 3)}:${t.state}`)]),
    ).toEqual([
      ['node1', 'down', ['a00:running']],
      ['node2', 'ready', ['b00:running']],
      [UNPLACED, 'pending', ['p00:pending']],
    ]);
    expect(report[2]!.tasks[0]!.error).toBe('no suitable node');
  });

  it('names what needs an eye: a node down with what it last ran, unplaced tasks, unwanted running tasks', () => {
    const report = nodeReport(
      [node('1', 'down'), node('2')],
      [
        task('a', 'v2.0.0', 'running', '1'),
        task('z', 'v1.0.0', 'running', '2', { desired: 'shutdown' }),
        task('p', 'v1.0.0', 'pending', undefined, { message: 'no suitable node' }),
      ],
    );
    expect(nodeTrouble(report)).toEqual([
      'node1 (10.0.0.1) is down: what it runs is unknown; it last ran app_api v2.0.0',
      'node2 still runs app_api v1.0.0 (task z00000000000), which Swarm wants shutdown',
      'app_api task p00000000000 is not placed: no suitable node',
    ]);
    expect(nodeTrouble(nodeReport([node('1')], [task('a', 'v1.0.0', 'running', '1')]))).toEqual([]);
  });

  it('tagOf reads the tag, or the digest when there is none', () => {
    expect(tagOf('reg:5000/acme/api:v1.2.3@sha256:abc')).toBe('v1.2.3');
    expect(tagOf(`reg:5000/acme/api@sha256:${'b'.repeat(64)}`)).toBe(`sha256:${'b'.repeat(12)}`);
  });
});
