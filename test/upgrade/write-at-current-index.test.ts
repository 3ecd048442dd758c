import type Docker from 'dockerode';
import { describe, expect, it } from 'vitest';
import { writeAtCurrentIndex } from '../../src/commands/upgrade/swarm/write-at-current-index.ts';
import type { ServiceSpec } from '../../src/upgrade/swarm/swarm-types.ts';

/**
 * An engine whose service moves its version index by itself `moves` times, each time just after
 * it was read (as Swarm does when an update's status changes), and refuses a write at a stale
 * index the way dockerd does.
 */
function engine(moves: number) {
  let index = 10;
  let left = moves;
  const writes: { version: number; spec: ServiceSpec }[] = [];
  const service = {
    inspect: async () => {
      const read = { ID: 'svc1', Version: { Index: index }, Spec: { Name: 'svc_api' } };
      if (left-- > 0) index++;
      return read;
    },
    update: async (options: { _query: { version: number }; _body: ServiceSpec }) => {
      if (options._query.version !== index) {
        throw Object.assign(new Error('(HTTP code 500) server error'), {
          statusCode: 500,
          json: { message: 'rpc error: code = Unknown desc = update out of sequence' },
        });
      }
      index++;
      writes.push({ version: options._query.version, spec: options._body });
    },
  };
  return { docker: { getService: () => service } as unknown as Docker, writes };
}

const spec: ServiceSpec = { Name: 'svc_api', TaskTemplate: { ContainerSpec: { Image: 'api:v1' } } };

describe('writeAtCurrentIndex', () => {
  it('reads again and writes when Swarm moved the index between the read and the write', async () => {
    const { docker, writes } = engine(2);
    await expect(writeAtCurrentIndex(docker, 'svc1', () => spec)).resolves.toEqual(spec);
    expect(writes).toEqual([{ version: 12, spec }]);
  });

  it("gives up after a few attempts with the engine's refusal", async () => {
    const { docker, writes } = engine(100);
    await expect(writeAtCurrentIndex(docker, 'svc1', () => spec)).rejects.toThrow(/update out of sequence/);
    expect(writes).toEqual([]);
  });

  it('writes nothing when the decision, on the service as read, is to write nothing', async () => {
    const { docker, writes } = engine(0);
    await expect(writeAtCurrentIndex(docker, 'svc1', () => undefined)).resolves.toBeUndefined();
    expect(writes).toEqual([]);
  });
});
