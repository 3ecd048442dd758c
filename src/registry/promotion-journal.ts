import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Channel } from '../channels/channel-of.ts';
import type { JournalWrite } from '../channels/journal-recovery.ts';
import { writeFileAtomically } from '../files/atomic-write.ts';
import { currentHolder, type Holder, parseHolder } from '../files/holder.ts';

/**
 * A promotion's journal: before its group of tag writes a promotion records, in a file of its own
 * beside the store (a layout's `.journal/`, a registry's under the project's `.release/journal/`),
 * every write it intends and where each tag pointed before, and who it is. It removes the file
 * when the group has ended (done, undone, or reported). A file left behind means the process was
 * killed (SIGKILL, a crash, a second Ctrl-C): `recover-promotion.ts` finishes or undoes it the
 * next time any command opens the store.
 */
export interface PromotionJournal {
  schema: 1;
  holder: Holder;
  channel: Channel;
  /** The version's image tag. */
  tag: string;
  /** Every artifact of the promotion, for the settle of `latest` (release channel). */
  artifacts: { artifact: string; repository: string }[];
  writes: JournalWrite[];
  /** Signatures the promotion makes after its tags: a recovery that completes the tags says so. */
  signs?: 'rc' | 'release';
  /**
   * Directories outside the store where the promotion writes files users keep (the record's, and
   * the release set beside it). A recovery of a killed promotion sweeps its dead temporaries there
   * too: any reader of the store knows where the store is, not where the project keeps its record.
   */
  sweep?: string[];
}

export const JOURNAL_SUFFIX = '.promotion.json';
/** A journal's holder beats every 5 s; silent for 30 s it is gone even on another host. */
const STALE_AFTER_MS = 30_000;

export interface OpenJournal {
  path: string;
  /** The group of writes has ended: remove the journal. */
  end(): Promise<void>;
}

/** Write the journal (atomically) before the first tag write; it beats until `end`. */
export async function beginJournal(
  dir: string,
  intent: Omit<PromotionJournal, 'schema' | 'holder'>,
): Promise<OpenJournal> {
  await mkdir(dir, { recursive: true });
  const token = randomBytes(8).toString('hex');
  const path = join(dir, `${process.pid}-${token}${JOURNAL_SUFFIX}`);
  let journal: PromotionJournal = { schema: 1, holder: currentHolder(STALE_AFTER_MS, token), ...intent };
  await writeFileAtomically(path, `${JSON.stringify(journal, null, 2)}\n`);
  let ended = false;
  let beating: Promise<void> = Promise.resolve();
  const beat = setInterval(() => {
    journal = { ...journal, holder: { ...journal.holder, heartbeat: Date.now() } };
    beating = writeFileAtomically(path, `${JSON.stringify(journal, null, 2)}\n`).catch(() => undefined);
  }, STALE_AFTER_MS / 6);
  beat.unref();
  return {
    path,
    async end() {
      if (ended) return;
      ended = true;
      clearInterval(beat);
      await beating; // a beat landing after the removal would bring the journal back
      await rm(path, { force: true });
    },
  };
}

export interface FoundJournal {
  path: string;
  /** Undefined when the file is not a journal this version can read. */
  journal?: PromotionJournal;
}

/** Every journal in `dir` (none when it does not exist). */
export async function listJournals(dir: string): Promise<FoundJournal[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const found: FoundJournal[] = [];
  for (const name of names.filter((n) => n.endsWith(JOURNAL_SUFFIX)).sort()) {
    const path = join(dir, name);
    const text = await readFile(path, 'utf8').catch(() => undefined);
    if (text === undefined) continue; // ended meanwhile
    found.push({ path, ...(parseJournal(text) ? { journal: parseJournal(text)! } : {}) });
  }
  return found;
}

function parseJournal(text: string): PromotionJournal | undefined {
  try {
    const value = JSON.parse(text) as PromotionJournal;
    if (value.schema !== 1 || !Array.isArray(value.writes) || !Array.isArray(value.artifacts))
      return undefined;
    if (
      value.sweep !== undefined &&
      !(Array.isArray(value.sweep) && value.sweep.every((d) => typeof d === 'string'))
    )
      return undefined;
    if (!parseHolder(JSON.stringify(value.holder))) return undefined;
    return value;
  } catch {
    return undefined;
  }
}

/** Keep an unreadable journal for a person to look at, out of the way of every later run. */
export async function setAside(path: string): Promise<string> {
  const aside = `${path}.unreadable`;
  await rename(path, aside);
  return aside;
}

/** Where a store's journals live: inside a layout, or under the project for a registry. */
export function journalDirOf(store: { layoutRoot?: string; registry?: string; projectDir: string }): string {
  if (store.layoutRoot) return join(store.layoutRoot, '.journal');
  const safe = (store.registry ?? 'registry').replace(/[^A-Za-z0-9._-]+/g, '_');
  return join(store.projectDir, '.release', 'journal', safe);
}
