import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { RegistryStore } from '../../src/registry/registry-store.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type RunningRegistry, startRegistry } from '../helpers/registry.ts';
import { leftovers } from './interrupt.ts';
import { interruptSuite, VERSION } from './interrupt-suite.ts';
import { pushRelease, recordDigests, stampedProject } from './project.ts';

// An interrupted release promotion against a real docker-registry (the suite is in
// interrupt-suite.ts). One project; every round promotes into a fresh namespace. The journal of
// a registry promotion lives in the project (`.release/journal/`).
let registry: RunningRegistry;
let repo: GitRepo;
let record: string;
let namespace = 0;

beforeAll(async () => {
  registry = await startRegistry();
  repo = await stampedProject(VERSION, { registry: `${registry.host}/ns0` });
  record = readFileSync(join(repo.dir, 'dist', 'release.json'), 'utf8');
}, 60_000);
afterAll(async () => {
  repo?.remove();
  await registry?.stop();
});

const registryOf = () => `${registry.host}/ns${namespace}`;

describe('an interrupted release promotion never blocks or splits (docker-registry)', () => {
  interruptSuite(
    {
      get dir() {
        return repo.dir;
      },
      async reset() {
        namespace++;
        writeFileSync(join(repo.dir, 'release.config.json'), JSON.stringify({ registry: registryOf() }));
        writeFileSync(join(repo.dir, 'dist', 'release.json'), record);
        const store = new RegistryStore({ registry: registryOf(), env: {} });
        const old = await pushRelease(store, ['v1.1.0', 'latest'], { size: 256 });
        const built = await pushRelease(store, [], { size: 256 });
        recordDigests(repo, built);
        return { old, built };
      },
      store: () => new RegistryStore({ registry: registryOf(), env: {} }),
      registry: registryOf,
      journalDir: () => join(repo.dir, '.release', 'journal', registryOf().replace(/[^A-Za-z0-9._-]+/g, '_')),
      leftovers: () => [...leftovers(join(repo.dir, '.release')), ...leftovers(join(repo.dir, 'dist'))],
      // Fewer than the layout's 16 (each round pushes a fresh namespace); most within the writes.
    },
    { spread: 4, inWrites: 6 },
  );
});
