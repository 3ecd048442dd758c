import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LayoutStore } from '../../src/registry/layout-store.ts';
import { openStore } from '../../src/registry/open-store.ts';
import type { ImageStore } from '../../src/registry/store.ts';
import type { GitRepo } from '../helpers/git-repo.ts';
import { leftovers, runSignalled, type SignalledRun, type SignalMoment } from './interrupt.ts';
import { type Artifact, digestsOf, pushRelease, recordDigests, stampedProject } from './project.ts';

// A release promotion on the OCI layout, interrupted with SIGINT and killed with SIGKILL at
// moments spread over its measured run, and at moments spread over its group of tag writes (timed
// from the journal it writes first). After each: the interrupted run said what it did (--json,
// exit 130), left no lock, temporary file or journal behind (SIGINT), and the next command that
// touches the store (the next promotion, or any reader opening it) completes at once, without a
// stale-lock wait, and no artifact carries v1.2.0 unless all do.
const VERSION = 'v1.2.0';
const ARGS = ['promote', '--channel', 'release', '--json'];
let repo: GitRepo;
let template: string;
let layout: string;
let old: Record<Artifact, string>;
let built: Record<Artifact, string>;
let recordTemplate: string;

beforeAll(async () => {
  repo = await stampedProject(VERSION, { registry: 'oci-layout:.release/oci' });
  layout = join(repo.dir, '.release', 'oci');
  template = mkdtempSync(join(tmpdir(), 'sr-interrupt-template-'));
  const store = new LayoutStore(template);
  old = await pushRelease(store, ['v1.1.0', 'latest']);
  built = await pushRelease(store, []);
  recordDigests(repo, built);
  recordTemplate = readFileSync(join(repo.dir, 'dist', 'release.json'), 'utf8');
}, 60_000);
afterAll(() => {
  repo?.remove();
  if (template) rmSync(template, { recursive: true, force: true });
});

/** A fresh copy of the layout before the promotion, and the record as `release build` left it. */
function resetRound(): void {
  rmSync(layout, { recursive: true, force: true });
  cpSync(template, layout, { recursive: true });
  writeFileSync(join(repo.dir, 'dist', 'release.json'), recordTemplate);
}

/** v1.2.0 is on every artifact (and latest with it) or on none (and latest stayed at v1.1.0). */
async function allOrNone(store: ImageStore, where: string): Promise<'all' | 'none'> {
  const tagged = await digestsOf(store, VERSION);
  const latest = await digestsOf(store, 'latest');
  if (Object.values(tagged).every((d) => d === null)) {
    expect(latest, `${where}: latest`).toEqual(old);
    return 'none';
  }
  expect(tagged, `${where}: ${VERSION} on a subset of the artifacts`).toEqual(built);
  expect(latest, `${where}: latest`).toEqual(built);
  return 'all';
}

/** The interrupted run told the truth: exit 130 with an INTERRUPTED document, or it had finished. */
function checkStopped(run: SignalledRun, where: string): string {
  // Node had not yet run a line of the bin: the signal's default action, nothing printed or done.
  if (run.signal === 'SIGINT' && run.stdout === '') return 'before-start';
  const doc = JSON.parse(run.stdout) as { error?: { code: string; exitCode: number; stage: string } };
  // Finished; or finished and printed, then the signal came while Node was exiting (Node gives
  // signals their default action back at exit).
  if (run.code === 0 || (run.signal === 'SIGINT' && !doc.error)) {
    expect(doc.error, `${where}: ${run.stderr}`).toBeUndefined();
    return 'finished';
  }
  expect(run.code, `${where}: ${run.stderr}`).toBe(130);
  expect(doc.error, where).toMatchObject({ code: 'INTERRUPTED', exitCode: 130 });
  expect(run.stderr, where).not.toMatch(/\n\s+at .+:\d+:\d+/); // no stack trace
  return doc.error!.stage;
}

/** The next promotion: completes (no lock wait, no LAYOUT_LOCKED), and leaves the store whole. */
async function nextPromotion(where: string): Promise<void> {
  const next = await runSignalled(ARGS, repo.dir);
  expect(next.code, `${where}: next promotion: ${next.stderr}`).toBe(0);
  expect(next.stderr, where).not.toMatch(/waiting for|LAYOUT_LOCKED/);
  expect(leftovers(layout), `${where}: after the next promotion`).toEqual([]);
  expect(await allOrNone(new LayoutStore(layout), `${where}: after the next promotion`)).toBe('all');
}

/** 10 moments over the measured run, then 6 over the tag writes (from the journal's appearance). */
function moments(signal: 'SIGINT' | 'SIGKILL', runMs: number, writesMs: number): SignalMoment[] {
  const spread = Array.from({ length: 10 }, (_, i) => ({
    signal,
    atMs: Math.round((runMs * (i + 0.5)) / 10),
  }));
  const journal = join(layout, '.journal');
  const inWrites = Array.from({ length: 6 }, (_, i) => ({
    signal,
    atMs: Math.round((writesMs * i) / 6),
    afterJournal: journal,
  }));
  return [...spread, ...inWrites];
}

describe('an interrupted release promotion never blocks or splits (OCI layout)', () => {
  let runMs = 0;
  let writesMs = 0;

  it('measures one promotion (and its group of writes)', async () => {
    resetRound();
    // The journal appears when the writes begin; from there to the exit: writes, settle, record.
    const run = await runSignalled(ARGS, repo.dir, {
      signal: 'SIGTERM',
      atMs: 60_000,
      afterJournal: join(layout, '.journal'),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.journalAtMs, 'the journal was written').toBeDefined();
    runMs = run.ms;
    writesMs = Math.max(12, run.ms - run.journalAtMs!);
    expect(leftovers(layout)).toEqual([]);
    expect(await allOrNone(new LayoutStore(layout), 'measured run')).toBe('all');
    console.log(`interrupt: one promotion takes ${runMs} ms, ${writesMs} ms of it from the journal on`);
  }, 60_000);

  it('SIGINT at 16 moments: finished or undone, exit 130 with the --json outcome, nothing left', async () => {
    const tally: Record<string, number> = {};
    for (const [i, moment] of moments('SIGINT', runMs, writesMs).entries()) {
      const where = `SIGINT #${i} at ${moment.atMs} ms${moment.afterJournal ? ' after the journal' : ''}`;
      resetRound();
      const run = await runSignalled(ARGS, repo.dir, moment);
      const stage = checkStopped(run, where);
      tally[stage] = (tally[stage] ?? 0) + 1;
      // A clean stop leaves nothing to recover: no lock, no temporary file, no journal.
      expect(leftovers(layout), where).toEqual([]);
      const state = await allOrNone(new LayoutStore(layout), where);
      if (stage === 'before-tags') expect(state, where).toBe('none');
      await nextPromotion(where);
    }
    console.log('interrupt: SIGINT outcomes', tally);
  }, 240_000);

  it('SIGKILL at 16 moments: the next command finishes or undoes it first', async () => {
    const tally: Record<string, number> = {};
    for (const [i, moment] of moments('SIGKILL', runMs, writesMs).entries()) {
      const where = `SIGKILL #${i} at ${moment.atMs} ms${moment.afterJournal ? ' after the journal' : ''}`;
      resetRound();
      const run = await runSignalled(ARGS, repo.dir, moment);
      const left = leftovers(layout).map((p) => p.replace(/.*\./, '.'));
      for (const kind of new Set(left)) tally[kind] = (tally[kind] ?? 0) + 1;
      if (run.code === 0) tally['finished'] = (tally['finished'] ?? 0) + 1;
      else expect(run.signal, where).toBe('SIGKILL');
      if (i % 2) {
        // Any reader that opens the store recovers it before its first read.
        const reader = openStore(`oci-layout:${layout}`, { cwd: repo.dir, env: {}, notice: () => {} });
        await allOrNone(reader, `${where}: a reader`);
        expect(leftovers(layout), `${where}: after a reader`).toEqual([]);
      }
      await nextPromotion(where);
    }
    console.log('interrupt: SIGKILL left', tally);
  }, 240_000);
});
