import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAtCurrentIndex } from '../../src/commands/upgrade/swarm/write-at-current-index.ts';
import type { ServiceSpec } from '../../src/upgrade/swarm/swarm-types.ts';
import { type Dockerd, startDockerd } from '../helpers/dockerd.ts';
import { freePort } from '../helpers/registry.ts';

// The rollback's write at the service's current version index, on a real single-node Swarm (a
// private dockerd): the index, the refusal of a write at a stale one ("update out of sequence")
// and the write itself are the engine's own. What the engine cannot do on cue is move the index
// at one exact moment, between our read and our write (Swarm does it by itself when an update's
// status changes): `racing` keeps the real client and, right after each of the first `moves`
// reads, makes a real change to the service through the same engine before handing the read back.

let dockerd: Dockerd;
let serial = 0;

beforeAll(async () => {
  dockerd = await startDockerd();
  await dockerd.docker
    .swarmInit({ ListenAddr: '127.0.0.1:0', AdvertiseAddr: '127.0.0.1' })
    .catch(async (error: Error) => {
      if (!/port|address/i.test(error.message)) throw error;
      await dockerd.docker.swarmInit({
        ListenAddr: `127.0.0.1:${await freePort()}`,
        AdvertiseAddr: '127.0.0.1',
      });
    });
}, 120_000);
afterAll(async () => {
  await dockerd?.stop();
});

/** A service with no replicas (nothing to pull or run: only its spec and index matter here). */
async function service(): Promise<{ id: string; spec: ServiceSpec }> {
  const spec = {
    Name: `svc_api_${++serial}`,
    TaskTemplate: { ContainerSpec: { Image: 'acme-api:v1' } },
    Mode: { Replicated: { Replicas: 0 } },
  };
  const created = (await dockerd.docker.createService(spec as never)) as { id?: string; ID?: string };
  return { id: (created.id ?? created.ID)!, spec: spec as ServiceSpec };
}

async function inspect(id: string): Promise<{ index: number; spec: ServiceSpec }> {
  const info = (await dockerd.docker.getService(id).inspect()) as {
    Version: { Index: number };
    Spec: ServiceSpec;
  };
  return { index: info.Version.Index, spec: info.Spec };
}

/** The real client, with someone else's change to the service right after each of the first `moves` reads. */
function racing(moves: number): { docker: Docker; reads: () => number } {
  let reads = 0;
  const real = dockerd.docker;
  const docker = new Proxy(real, {
    get(target, key, receiver) {
      if (key !== 'getService') return Reflect.get(target, key, receiver);
      return (id: string) => {
        const service = real.getService(id);
        return new Proxy(service, {
          get(s, k, r) {
            if (k !== 'inspect') return Reflect.get(s, k, r);
            return async () => {
              const read = (await s.inspect()) as { Version: { Index: number }; Spec: ServiceSpec };
              if (reads++ < moves) {
                // Another writer, through the engine, at the index just read: it moves the index.
                const labels = {
                  ...(read.Spec as { Labels?: Record<string, string> }).Labels,
                  moved: String(reads),
                };
                await s.update({
                  _query: { version: read.Version.Index },
                  _body: { ...read.Spec, Labels: labels },
                } as never);
              }
              return read;
            };
          },
        });
      };
    },
  });
  return { docker, reads: () => reads };
}

const rollback = (spec: ServiceSpec): ServiceSpec => ({
  ...spec,
  TaskTemplate: { ContainerSpec: { Image: 'acme-api:v0' } },
});

describe('writeAtCurrentIndex on a real Swarm', () => {
  it('reads again and writes when the index moved between the read and the write', async () => {
    const { id } = await service();
    const { docker, reads } = racing(2);
    const written = await writeAtCurrentIndex(docker as never, id, (s) => rollback(s.spec as ServiceSpec));
    expect(reads()).toBe(3); // two refused by the engine as out of sequence, the third written
    const after = await inspect(id);
    expect(after.spec.TaskTemplate?.ContainerSpec?.Image).toBe('acme-api:v0');
    expect(written?.TaskTemplate?.ContainerSpec?.Image).toBe('acme-api:v0');
    // Our write went over the other writer's last change, not under it.
    expect((after.spec as { Labels?: Record<string, string> }).Labels).toEqual({ moved: '2' });
  }, 60_000);

  it("gives up after a few attempts with the engine's own refusal", async () => {
    const { id } = await service();
    const before = await inspect(id);
    const { docker, reads } = racing(100);
    await expect(
      writeAtCurrentIndex(docker as never, id, (s) => rollback(s.spec as ServiceSpec)),
    ).rejects.toThrow(/update out of sequence/);
    expect(reads()).toBe(5);
    const after = await inspect(id);
    // Only the other writer's changes: ours never landed.
    expect(after.spec.TaskTemplate?.ContainerSpec?.Image).toBe('acme-api:v1');
    expect(after.index).toBeGreaterThan(before.index);
  }, 60_000);

  it('writes nothing when the decision, on the service as read, is to write nothing', async () => {
    const { id } = await service();
    const before = await inspect(id);
    await expect(writeAtCurrentIndex(dockerd.docker as never, id, () => undefined)).resolves.toBeUndefined();
    expect((await inspect(id)).index).toBe(before.index);
  }, 60_000);
});
