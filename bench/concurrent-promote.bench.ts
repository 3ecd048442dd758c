// npm run bench:concurrent — what a round of concurrent promotions costs, beside one promotion
// alone, on a real docker-registry and on an OCI layout.
//
// A round is what test/promote/concurrent-*.test.ts run 30 times (and check after each): four
// `release promote` runs at once over one store (a backport, two newer releases, an rc or a dev),
// from a freshly seeded store. Beside it, the first run of the same round alone on a store seeded
// the same way: the ratio is what the lock and the settle of `latest` add when four runs contend.
// The suites hold only generous deadlines; the target is here: 30 rounds in under 170 s on a quiet
// 2-core machine, that is a median round under 5.7 s. The ratio to one run alone is shown beside
// it (on a layout, where one run takes tens of milliseconds, the file lock's waits dominate it).
//
// Env: BENCH_ROUNDS (default 8). Bounded: each store kind stops after 150 s.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LayoutStore } from '../src/registry/layout-store.ts';
import { RegistryStore } from '../src/registry/registry-store.ts';
import type { ImageStore } from '../src/registry/store.ts';
import { startRegistry } from '../test/helpers/registry.ts';
import {
  makeImageSets,
  prepareSlot,
  rng,
  roundRuns,
  runPromote,
  seedStore,
  slotProjects,
} from '../test/promote/concurrent.ts';
import { median, positiveEnv } from './support.ts';

const ROUNDS = positiveEnv('BENCH_ROUNDS', 8);
const SLOTS = 4;
const TARGET_ROUND_MS = 170_000 / 30;

interface Kind {
  name: string;
  /** A fresh, empty store for one measurement, and the `registry` value naming it. */
  fresh(id: string): { store: ImageStore; registry: string; cleanup(): void };
}

const sets = makeImageSets();
const repos = await slotProjects(SLOTS);
const registry = await startRegistry();
const root = mkdtempSync(join(tmpdir(), 'sr-bench-concurrent-'));
const kinds: Kind[] = [
  {
    name: 'docker-registry',
    fresh: (id) => ({
      store: new RegistryStore({ registry: `${registry.host}/${id}`, env: {} }),
      registry: `${registry.host}/${id}`,
      cleanup: () => {},
    }),
  },
  {
    name: 'OCI layout',
    fresh: (id) => {
      const dir = join(root, id);
      return {
        store: new LayoutStore(dir),
        registry: `oci-layout:${dir}`,
        cleanup: () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
];

const rows: string[][] = [];
let missed = false;
try {
  for (const kind of kinds) {
    const random = rng(1919);
    const deadline = Date.now() + 150_000;
    const rounds: number[] = [];
    const alone: number[] = [];
    for (let round = 1; round <= ROUNDS && Date.now() < deadline; round++) {
      const runs = roundRuns(random, round);
      // One run alone, on a store seeded as the round's is.
      const single = kind.fresh(`a${round}`);
      await seedStore(single.store, sets, runs);
      prepareSlot(repos[0]!, single.registry, sets, runs[0]!);
      let started = performance.now();
      const one = await runPromote(repos[0]!, runs[0]!, {});
      alone.push(performance.now() - started);
      single.cleanup();
      // The round: all four at once.
      const target = kind.fresh(`r${round}`);
      await seedStore(target.store, sets, runs);
      for (const [i, run] of runs.entries()) prepareSlot(repos[i]!, target.registry, sets, run);
      started = performance.now();
      const results = await Promise.all(runs.map((run, i) => runPromote(repos[i]!, run, {})));
      rounds.push(performance.now() - started);
      target.cleanup();
      for (const result of [one, ...results])
        if (result.code !== 0) throw new Error(`${kind.name}: a promotion failed: ${result.stderr}`);
    }
    const round = median(rounds);
    const ratio = round / median(alone);
    if (round >= TARGET_ROUND_MS) missed = true;
    rows.push([
      kind.name,
      String(rounds.length),
      (median(alone) / 1000).toFixed(2),
      (round / 1000).toFixed(2),
      `${ratio.toFixed(2)}x`,
      ((round * 30) / 1000).toFixed(0),
    ]);
  }
} finally {
  for (const repo of repos) repo.remove();
  await registry.stop();
  rmSync(root, { recursive: true, force: true });
}

console.log(`concurrent promotions, ${SLOTS} per round, medians`);
console.log(['store', 'rounds', 'one alone (s)', 'round (s)', 'round / one', '30 rounds (s)'].join('\t'));
for (const row of rows) console.log(row.join('\t'));
console.log(
  `target: a round under ${(TARGET_ROUND_MS / 1000).toFixed(1)} s (30 in 170 s), under ${SLOTS}x one alone`,
);
if (missed) process.exitCode = 1;
