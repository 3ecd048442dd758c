import { defineConfig } from 'vitest/config';
import SlowestFirstSequencer from './test/helpers/slowest-first-sequencer.ts';

// Suites start real registries, engines and browsers: a generous per-test budget.
const budget = { testTimeout: 60_000, hookTimeout: 120_000, pool: 'forks' } as const;

/**
 * Quick files of test/ (a few seconds each, in process: servers on loopback, scratch repositories,
 * `release` through `main()`) that change no process-wide state they do not restore: they share a
 * process per worker like the units, where a fresh process and import would cost more than
 * their tests (97 s of CPU against 67 s for these, loaded machine). A new file runs isolated
 * until it is listed here; one that starts engines, sends signals to itself or measures memory
 * stays isolated.
 */
const SHARED_PROCESS_FILES = [
  'test/action/action-bundle.test.ts',
  'test/adopt/ci-snippet.test.ts',
  'test/api/api-server.test.ts',
  'test/api/idle-sockets.test.ts',
  'test/api/min-cli-version.test.ts',
  'test/api/shutdown.test.ts',
  'test/api/startup-errors.test.ts',
  'test/api/symlinked-web-root.test.ts',
  'test/api/version-handler.test.ts',
  'test/api/version-source.test.ts',
  'test/build/artifact-errors.test.ts',
  'test/build/base-image.test.ts',
  'test/build/build-roles-timing.test.ts',
  'test/build/docker-builder.test.ts',
  'test/cli/bad-input.test.ts',
  'test/config/json-schema.test.ts',
  'test/config/validated-cache.test.ts',
  'test/docs/command-reference.test.ts',
  'test/docs/exit-codes.test.ts',
  'test/docs/folder-map.test.ts',
  'test/docs/kubernetes-files.test.ts',
  'test/docs/links.test.ts',
  'test/docs/package-lists.test.ts',
  'test/docs/prose.test.ts',
  'test/evidence/vsa-one-image-roles.test.ts',
  'test/gitops/bump-fixtures.test.ts',
  'test/init/component-inputs.test.ts',
  'test/init/empty-cli.test.ts',
  'test/init/existing-ci.test.ts',
  'test/init/init-ci.test.ts',
  'test/init/init-force.test.ts',
  'test/init/symlinks.test.ts',
  'test/lint/atomic-writes.test.ts',
  'test/min-cli/own-minimum.test.ts',
  'test/mirror/buildx-attestations.test.ts',
  'test/package/shipped-sources.test.ts',
  'test/promote/promote-layout.test.ts',
  'test/promote/recover-journal.test.ts',
  'test/registry/layout-store.test.ts',
  'test/registry/registry-auth.test.ts',
  'test/registry/registry-store.test.ts',
  'test/signing/bundle.test.ts',
  'test/signing/keygen.test.ts',
  'test/signing/referrers.test.ts',
  'test/signing/sign.test.ts',
  'test/stamp/commit-tags.test.ts',
  'test/stamp/outside-paths.test.ts',
  'test/startup/lazy-imports.test.ts',
  'test/steps/runner-stop.test.ts',
  'test/steps/stamp-steps.test.ts',
  'test/svc/install-command.test.ts',
  'test/upgrade/write-at-current-index.test.ts',
  'test/verify/cli-probe.test.ts',
  'test/verify/live-deployment.test.ts',
  'test/verify/skew-policy.test.ts',
  'test/watch/round.test.ts',
  'test/watch/watch-once.test.ts',
  'test/web/web-server.test.ts',
  'test/worker/worker.test.ts',
];

export default defineConfig({
  test: {
    // Once per run, for every project: compiles lib/ for the tests that run the bins as
    // subprocesses, and provides the run's own folder.
    globalSetup: ['test/helpers/global-setup.ts'],
    // At most two files at once on this two-core machine, so timing-sensitive suites are not starved.
    maxWorkers: 2,
    // The longest files first (test/durations.json), so none starts last and stretches the tail.
    sequence: { sequencer: SlowestFirstSequencer },
    projects: [
      {
        test: {
          ...budget,
          name: 'shared',
          include: ['src/**/*.test.ts', ...SHARED_PROCESS_FILES],
          // The pure core's units and the quick files above share one module graph per worker: a
          // fresh process and import per file cost more than twice the units' run time (67 s of CPU
          // against 29 s for src/).
          isolate: false,
        },
      },
      // Each file in a process of its own: they start engines, servers and signals.
      {
        test: {
          ...budget,
          name: 'isolated',
          include: ['test/**/*.test.ts'],
          exclude: ['**/node_modules/**', ...SHARED_PROCESS_FILES],
        },
      },
    ],
  },
});
