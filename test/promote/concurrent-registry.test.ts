import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { type FaultMode, type RegistryProxy, startProxy } from '../registry/proxy.ts';
import { type ImageSets, makeImageSets, runRounds, slotProjects } from './concurrent.ts';

// Concurrent `release promote` processes against one real docker-registry: 4 processes
// per round (a backport, two newer releases, an rc or dev), 30 rounds, invariants after each;
// then 30 rounds where one release run goes through the fault proxy and its nth request fails
// (refused, or applied with the answer lost).
const ROUNDS = 30;
const SLOTS = 4;
let registry: RunningRegistry;
let proxy: RegistryProxy;
let repos: GitRepo[] = [];
let sets: ImageSets;
let namespace = 0;

beforeAll(async () => {
  registry = await startRegistry();
  proxy = await startProxy(registry.host);
  sets = makeImageSets();
  repos = await slotProjects(SLOTS);
}, 60_000);
afterAll(async () => {
  for (const repo of repos) repo.remove();
  await proxy?.stop();
  await registry?.stop();
});

describe('concurrent promotions converge (docker-registry)', () => {
  it(`${ROUNDS} rounds of ${SLOTS} concurrent promote processes`, async () => {
    const tally = await runRounds({
      label: 'registry',
      rounds: ROUNDS,
      seed: 1919,
      repos,
      sets,
      target: () => {
        const ns = `c${++namespace}`;
        return {
          store: new RegistryStore({ registry: `${registry.host}/${ns}`, env: {} }),
          registryFor: () => `${registry.host}/${ns}`,
        };
      },
    });
    expect(tally['superseded'] ?? 0).toBeGreaterThan(0);
    expect(tally['current'] ?? 0).toBeGreaterThan(0);
  }, 600_000); // a deadline only: the speed target is `npm run bench:concurrent`'s

  it(`${ROUNDS} rounds with one process's nth request failing`, async () => {
    const tally = await runRounds({
      label: 'registry+faults',
      rounds: ROUNDS,
      seed: 1920,
      repos,
      sets,
      target: (round, runs, random) => {
        const ns = `f${++namespace}`;
        const faulty = runs.findIndex((r) => r.channel === 'release');
        const mode: FaultMode = round % 2 ? 'refuse' : 'drop-response';
        // A promote makes about 24 requests: fail one of the first 28 (some land in the settle).
        const nth = 1 + Math.floor(random() * 28);
        return {
          store: new RegistryStore({ registry: `${registry.host}/${ns}`, env: {} }),
          registryFor: (i) => `${i === faulty ? proxy.host : registry.host}/${ns}`,
          faulty,
          before: () => proxy.failNth(nth, mode),
          after: () => proxy.failNth(undefined),
        };
      },
    });
    // Some faulty runs failed and said so; every round still converged.
    expect(Object.keys(tally).some((k) => k.startsWith('failed:'))).toBe(true);
  }, 600_000); // a deadline only: the speed target is `npm run bench:concurrent`'s
});
