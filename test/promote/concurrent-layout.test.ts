import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LayoutStore } from '../../src/registry/layout-store.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { type ImageSets, makeImageSets, runRounds, slotProjects } from './concurrent.ts';

// Concurrent `release promote` processes writing one OCI image layout: 4 processes per
// round (a backport, two newer releases, an rc or dev), 30 rounds, invariants after each round.
const ROUNDS = 30;
const SLOTS = 4;
let root: string;
let repos: GitRepo[] = [];
let sets: ImageSets;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'sr-concurrent-layout-'));
  sets = makeImageSets();
  repos = await slotProjects(SLOTS);
}, 60_000);
afterAll(() => {
  for (const repo of repos) repo.remove();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('concurrent promotions converge (OCI layout)', () => {
  it(`${ROUNDS} rounds of ${SLOTS} concurrent promote processes`, async () => {
    const tally = await runRounds({
      label: 'layout',
      rounds: ROUNDS,
      seed: 19,
      repos,
      sets,
      target: (round) => {
        const dir = join(root, `r${round}`);
        return {
          store: new LayoutStore(dir),
          registryFor: () => `oci-layout:${dir}`,
          cleanup: () => rmSync(dir, { recursive: true, force: true }),
        };
      },
    });
    // Both outcomes of a release happened: some runs were superseded, some ended current.
    expect(tally['superseded'] ?? 0).toBeGreaterThan(0);
    expect(tally['current'] ?? 0).toBeGreaterThan(0);
  }, 600_000); // a deadline only: the speed target is `npm run bench:concurrent`'s
});
