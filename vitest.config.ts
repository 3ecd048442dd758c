import { defineConfig } from 'vitest/config';
import SlowestFirstSequencer from './test/helpers/slowest-first-sequencer.ts';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Compiles lib/ once, for the tests that run the bins as subprocesses.
    globalSetup: ['test/helpers/global-setup.ts'],
    // Suites start real registries, engines and browsers: generous per-test budget, and at most
    // two files at once on this two-core machine so timing-sensitive suites are not starved.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
    pool: 'forks',
    // The longest files first (test/durations.json), so none starts last and stretches the tail.
    sequence: { sequencer: SlowestFirstSequencer },
  },
});
