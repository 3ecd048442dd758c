import { expect, it } from 'vitest';
import { openStore } from '../../src/registry/open-store.ts';
import type { ImageStore } from '../../src/registry/store.ts';
import { runSignalled, type SignalledRun, type SignalMoment } from './interrupt.ts';
import { type Artifact, digestsOf } from './project.ts';

// The interruption suite, run against a store kind (`interrupt-layout.test.ts`,
// `interrupt-registry.test.ts`): a release promotion of v1.2.0 interrupted with SIGINT and killed
// with SIGKILL at 16 moments each (by default), 10 spread over its measured run and 6 over its
// group of tag writes (timed from the journal it writes first, over the first 60% of its life). After each: the interrupted run said what it
// did (--json, exit 130), left no lock, temporary file or journal (SIGINT); the next command that
// touches the store (the next promotion, or a reader opening it) completes at once without a
// stale-lock wait, and no artifact carries v1.2.0 unless all do. Whether each signal landed within
// the writes is read, not assumed: the journal is on disk from before the first tag write until
// the group is over, and the test looks for it as it sends the signal. At least half the moments
// aimed at the writes must land there (SIGINT: stopped after completing them; SIGKILL: the journal
// left behind), or the suite fails: recovery is exercised, not only hoped for.

export const VERSION = 'v1.2.0';
const ARGS = ['promote', '--channel', 'release', '--json'];

export interface InterruptTarget {
  /** The project directory the promotions run in. */
  dir: string;
  /** A fresh store before the promotion (v1.1.0 and latest; v1.2.0's images built, untagged). */
  reset(): Promise<{ old: Record<Artifact, string>; built: Record<Artifact, string> }>;
  /** A direct view of the store (no recovery), for the checks. */
  store(): ImageStore;
  /** The `registry` config value, for a reader opening the store as commands do. */
  registry(): string;
  /** Where the promotion's journal appears. */
  journalDir(): string;
  /** Locks, temporary files and journals left anywhere the promotion writes. */
  leftovers(): string[];
}

/** How many moments per signal: spread over the whole run, and over the tag writes. */
export interface MomentCounts {
  spread: number;
  inWrites: number;
}

export function interruptSuite(
  target: InterruptTarget,
  counts: MomentCounts = { spread: 10, inWrites: 6 },
): void {
  const total = counts.spread + counts.inWrites;
  // Of the moments aimed at the writes, at least half must land there (a spread one may count too).
  const minLanded = Math.ceil(counts.inWrites / 2);
  let images: Awaited<ReturnType<InterruptTarget['reset']>>;
  let runMs = 0;
  let writesMs = 0;

  /** v1.2.0 is on every artifact (and latest with it) or on none (and latest stayed at v1.1.0). */
  async function allOrNone(store: ImageStore, where: string): Promise<'all' | 'none'> {
    const tagged = await digestsOf(store, VERSION);
    const latest = await digestsOf(store, 'latest');
    if (Object.values(tagged).every((d) => d === null)) {
      expect(latest, `${where}: latest`).toEqual(images.old);
      return 'none';
    }
    expect(tagged, `${where}: ${VERSION} on a subset of the artifacts`).toEqual(images.built);
    expect(latest, `${where}: latest`).toEqual(images.built);
    return 'all';
  }

  /** The next promotion: completes (no lock wait, no LAYOUT_LOCKED), and leaves the store whole. */
  async function nextPromotion(where: string): Promise<void> {
    const next = await runSignalled(ARGS, target.dir);
    expect(next.code, `${where}: next promotion: ${next.stderr}`).toBe(0);
    expect(next.stderr, where).not.toMatch(/waiting for|LAYOUT_LOCKED/);
    expect(target.leftovers(), `${where}: after the next promotion`).toEqual([]);
    expect(await allOrNone(target.store(), `${where}: after the next promotion`)).toBe('all');
  }

  function moments(signal: 'SIGINT' | 'SIGKILL'): SignalMoment[] {
    const spread = Array.from({ length: counts.spread }, (_, i) => ({
      signal,
      atMs: Math.round((runMs * (i + 0.5)) / counts.spread),
    }));
    // Over the first 60% of the journal's measured life: a run's writes vary by tens of ms from
    // one run to the next on a shared machine, and a moment past their end proves nothing.
    const inWrites = Array.from({ length: counts.inWrites }, (_, i) => ({
      signal,
      atMs: Math.round((writesMs * 0.6 * i) / counts.inWrites),
      afterJournal: 'the journal directory',
    }));
    return [...spread, ...inWrites];
  }

  /**
   * The moment with this round's journal directory, read after `reset()`: a store may move to a
   * fresh place each round (a registry namespace), and a signal timed from a directory no
   * promotion writes would never be sent.
   */
  function inRound(moment: SignalMoment): SignalMoment {
    const dir = target.journalDir();
    return { ...moment, journal: dir, ...(moment.afterJournal ? { afterJournal: dir } : {}) };
  }

  const label = (i: number, m: SignalMoment) =>
    `${m.signal} #${i} at ${m.atMs} ms${m.afterJournal ? ' after the journal' : ''}`;

  it('measures one promotion (and its group of writes)', async () => {
    images = await target.reset();
    const run = await runSignalled(ARGS, target.dir, {
      signal: 'SIGTERM',
      atMs: 60_000,
      afterJournal: target.journalDir(),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.journalAtMs, 'the journal was written').toBeDefined();
    runMs = run.ms;
    // The journal's life: the tag writes, their signatures, the settle of latest (else to the exit).
    writesMs = Math.max(12, (run.journalGoneAtMs ?? run.ms) - run.journalAtMs!);
    expect(target.leftovers()).toEqual([]);
    expect(await allOrNone(target.store(), 'measured run')).toBe('all');
    console.log(`interrupt: one promotion takes ${runMs} ms, ${writesMs} ms of it from the journal on`);
  }, 60_000);

  it(`SIGINT at ${total} moments: finished or undone, exit 130 with the --json outcome, nothing left`, async () => {
    const tally: Record<string, number> = {};
    const landed: string[] = [];
    for (const [i, moment] of moments('SIGINT').entries()) {
      const where = label(i, moment);
      images = await target.reset();
      const run = await runSignalled(ARGS, target.dir, inRound(moment));
      const stage = checkStopped(run, where);
      tally[stage] = (tally[stage] ?? 0) + 1;
      if (run.inWrites) {
        // Sent within the writes: they were completed (or had just been), never left half-done.
        expect(['tags-completed', 'tags-failed', 'finished'], where).toContain(stage);
        landed.push(`${where} (${stage})`);
      }
      // A clean stop leaves nothing to recover: no lock, no temporary file, no journal.
      expect(target.leftovers(), where).toEqual([]);
      const state = await allOrNone(target.store(), where);
      if (stage === 'before-tags' || stage === 'before-start') expect(state, where).toBe('none');
      await nextPromotion(where);
    }
    console.log(
      'interrupt: SIGINT outcomes',
      tally,
      `\ninterrupt: SIGINT within the writes:\n  ${landed.join('\n  ')}`,
    );
    expect(landed.length, 'SIGINT runs that landed within the tag writes').toBeGreaterThanOrEqual(minLanded);
  }, 240_000);

  it('SIGTERM (a cancelled CI job) within the writes: the same, with exit 143', async () => {
    let landed = 0;
    for (const atMs of [0, Math.round(writesMs / 3)]) {
      const where = `SIGTERM at ${atMs} ms after the journal`;
      images = await target.reset();
      const run = await runSignalled(ARGS, target.dir, {
        signal: 'SIGTERM',
        atMs,
        afterJournal: target.journalDir(),
      });
      const stage = checkStopped(run, where, 'SIGTERM');
      if (run.inWrites) {
        expect(['tags-completed', 'tags-failed', 'finished'], where).toContain(stage);
        landed++;
      }
      expect(target.leftovers(), where).toEqual([]);
      await allOrNone(target.store(), where);
      await nextPromotion(where);
    }
    expect(landed, 'SIGTERM runs that landed within the tag writes').toBeGreaterThanOrEqual(1);
  }, 60_000);

  it(`SIGKILL at ${total} moments: the next command finishes or undoes it first`, async () => {
    const tally: Record<string, number> = {};
    const landed: string[] = [];
    for (const [i, moment] of moments('SIGKILL').entries()) {
      const where = label(i, moment);
      images = await target.reset();
      const run = await runSignalled(ARGS, target.dir, inRound(moment));
      const left = target.leftovers();
      for (const kind of new Set(left.map((p) => p.replace(/.*\./, '.'))))
        tally[kind] = (tally[kind] ?? 0) + 1;
      if (run.inWrites) {
        // Killed within the writes: the journal is still there for the next command to act on.
        expect(
          left.some((p) => p.endsWith('.promotion.json')),
          `${where}: a journal left`,
        ).toBe(true);
        landed.push(where);
      }
      if (run.code === 0) tally['finished'] = (tally['finished'] ?? 0) + 1;
      else expect(run.signal, where).toBe('SIGKILL');
      if (i % 2) {
        // Any reader that opens the store as commands do recovers it before its first read.
        const reader = openStore(target.registry(), { cwd: target.dir, env: {}, notice: () => {} });
        await allOrNone(reader, `${where}: a reader`);
        expect(target.leftovers(), `${where}: after a reader`).toEqual([]);
      }
      await nextPromotion(where);
    }
    console.log(
      'interrupt: SIGKILL left',
      tally,
      `\ninterrupt: SIGKILL within the writes:\n  ${landed.join('\n  ')}`,
    );
    expect(landed.length, 'SIGKILL runs that landed within the tag writes').toBeGreaterThanOrEqual(minLanded);
  }, 240_000);
}

/** The interrupted run told the truth: exit 130 with an INTERRUPTED document, or it had finished. */
function checkStopped(run: SignalledRun, where: string, signal: 'SIGINT' | 'SIGTERM' = 'SIGINT'): string {
  const code = signal === 'SIGINT' ? 130 : 143;
  // Node had not yet run a line of the bin: the signal's default action, nothing printed or done.
  if (run.signal === signal && run.stdout === '') return 'before-start';
  const doc = JSON.parse(run.stdout) as { error?: { code: string; exitCode: number; stage: string } };
  // Finished; or finished and printed, then the signal came while Node was exiting (Node gives
  // signals their default action back at exit).
  if (run.code === 0 || (run.signal === signal && !doc.error)) {
    expect(doc.error, `${where}: ${run.stderr}`).toBeUndefined();
    return 'finished';
  }
  expect(run.code, `${where}: ${run.stderr}`).toBe(code);
  expect(doc.error, where).toMatchObject({ code: 'INTERRUPTED', exitCode: code, signal });
  expect(run.stderr, where).not.toMatch(/\n\s+at .+:\d+:\d+/); // no stack trace
  return doc.error!.stage;
}
