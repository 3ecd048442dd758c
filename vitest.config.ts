import { defineConfig } from 'vitest/config';
import SlowestFirstSequencer from './test/helpers/slowest-first-sequencer.ts';

// Suites start real registries, engines and browsers: a generous per-test budget.
const budget = { testTimeout: 60_000, hookTimeout: 120_000, pool: 'forks' } as const;

export default defineConfig({
  test: {
    // Once per run, for every project: compiles lib/ for the tests that run the bins as
    // subprocesses, and provides the run's own folder.
    globalSetup: ['test/helpers/global-setup.ts'],
    // Three files at once on this two-core machine: the integration suites spend most of their time
    // waiting on engines, registries and Swarm's update pauses (about 0.6 core each), so a third
    // file fills the idle core; their deadlines are set for a loaded machine.
    maxWorkers: 3,
    // The longest files first (test/durations.json), so none starts last and stretches the tail.
    sequence: { sequencer: SlowestFirstSequencer },
    projects: [
      {
        test: {
          ...budget,
          name: 'unit',
          include: ['src/**/*.test.ts'],
          // The pure core's units share one module graph per worker: a fresh process and import
          // per file cost more than twice their run time (67 s of CPU against 27 s for src/).
          isolate: false,
        },
      },
      // Each file in a process of its own: they start engines, servers and signals.
      { test: { ...budget, name: 'integration', include: ['test/**/*.test.ts'] } },
    ],
  },
});
