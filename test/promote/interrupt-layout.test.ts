import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { LayoutStore } from '../../src/registry/layout-store.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { leftovers } from './interrupt.ts';
import { interruptSuite, VERSION } from './interrupt-suite.ts';
import { type Artifact, pushRelease, recordDigests, stampedProject } from './project.ts';

// An interrupted release promotion on the OCI layout (the suite is in interrupt-suite.ts). One
// project and one template layout, copied afresh for every round.
let repo: GitRepo;
let template: string;
let record: string;
let images: { old: Record<Artifact, string>; built: Record<Artifact, string> };

beforeAll(async () => {
  repo = await stampedProject(VERSION, { registry: 'oci-layout:.release/oci' });
  template = mkdtempSync(join(tmpdir(), 'sr-interrupt-template-'));
  const store = new LayoutStore(template);
  images = { old: await pushRelease(store, ['v1.1.0', 'latest']), built: await pushRelease(store, []) };
  recordDigests(repo, images.built);
  record = readFileSync(join(repo.dir, 'dist', 'release.json'), 'utf8');
}, 60_000);
afterAll(() => {
  repo?.remove();
  if (template) rmSync(template, { recursive: true, force: true });
});

const layout = () => join(repo.dir, '.release', 'oci');

describe('an interrupted release promotion never blocks or splits (OCI layout)', () => {
  interruptSuite({
    get dir() {
      return repo.dir;
    },
    async reset() {
      rmSync(layout(), { recursive: true, force: true });
      cpSync(template, layout(), { recursive: true });
      writeFileSync(join(repo.dir, 'dist', 'release.json'), record);
      return images;
    },
    store: () => new LayoutStore(layout()),
    registry: () => `oci-layout:${layout()}`,
    journalDir: () => join(layout(), '.journal'),
    leftovers: () => [...leftovers(layout()), ...leftovers(join(repo.dir, 'dist'))],
  });
});
