import { rm } from 'node:fs/promises';
import { decideRecovery, type RecoveryDecision } from '../channels/journal-recovery.ts';
import { short } from '../channels/promotion-plan.ts';
import { ExternalError } from '../errors.ts';
import { holderGoneNow } from '../files/holder.ts';
import { sweepDeadTemporaries } from '../files/sweep-temporaries.ts';
import { putTagBack, referenceOf } from './apply-promotion.ts';
import { listJournals, type PromotionJournal, setAside } from './promotion-journal.ts';
import { settleLatest } from './settle-latest.ts';
import type { ImageStore } from './store.ts';

export interface RecoveryOptions {
  journalDir: string;
  /** Directories where killed writers may have left temporary files (a layout's). */
  temporaryDirs?: () => Promise<string[]>;
  notice: (text: string) => void;
}

/**
 * Before a command uses a store: remove temporary files killed writers left, then finish or undo
 * every promotion whose journal outlived its process (`decideRecovery` chooses). Journals of live
 * promotions (a concurrent run) are left alone. Recovering twice at once is harmless: each action
 * is idempotent and the settle of `latest` converges (`settle-latest.ts`).
 */
export async function recoverStore(store: ImageStore, options: RecoveryOptions): Promise<void> {
  const dirs = [options.journalDir, ...((await options.temporaryDirs?.()) ?? [])];
  const swept = await sweepDeadTemporaries(dirs);
  if (swept.length) options.notice(`removed ${swept.length} temporary file(s) left by killed processes`);
  for (const found of await listJournals(options.journalDir)) {
    if (!found.journal) {
      const aside = await setAside(found.path).catch(() => found.path);
      options.notice(`${found.path} is not a promotion journal this version reads; set aside as ${aside}`);
      continue;
    }
    const journal = found.journal;
    const gone = holderGoneNow(journal.holder);
    if (!gone) continue; // a promotion running now: it ends its own journal
    const decision = await recoverJournal(store, journal);
    // What the killed promotion was writing beside the store (its record, its release set).
    const beside = await sweepDeadTemporaries(journal.sweep ?? []);
    if (beside.length) options.notice(`removed ${beside.length} temporary file(s) the killed promotion left`);
    await rm(found.path, { force: true });
    options.notice(describe(store, journal, gone, decision));
  }
}

async function recoverJournal(store: ImageStore, journal: PromotionJournal): Promise<RecoveryDecision> {
  try {
    const observed = [];
    for (const write of journal.writes) {
      const now = (await store.resolve(write.repository, write.tag))?.digest ?? null;
      const targetPresent = now === write.to || Boolean(await store.resolve(write.repository, write.to));
      observed.push({ now, targetPresent });
    }
    const decision = decideRecovery(journal.channel, journal.writes, observed);
    for (const { action, write } of decision.actions) {
      if (action === 'write') {
        const manifest = await store.getManifest(write.repository, write.to);
        if (!manifest) throw new Error(`${write.repository}@${write.to} vanished`);
        await store.putManifest(write.repository, write.tag, manifest.bytes, manifest.descriptor.mediaType);
      } else {
        await putTagBack(store, write);
      }
    }
    if (decision.settleLatest) {
      const settle = await settleLatest(store, journal.artifacts);
      if (!settle.converged) throw new Error(settle.problem ?? 'latest did not settle');
    }
    return decision;
  } catch (error) {
    throw new ExternalError(
      'JOURNAL_RECOVERY_FAILED',
      `${store.name}: could not finish or undo the interrupted promotion of ${journal.tag} (${journal.channel}): ${(error as Error).message}`,
      {
        hint: 'fix the store (reachable, writable), then run any release command on it again: the journal is kept until the recovery succeeds',
        cause: error,
      },
    );
  }
}

function describe(store: ImageStore, journal: PromotionJournal, gone: string, decision: RecoveryDecision) {
  const lines = [
    `an interrupted promotion of ${journal.tag} (${journal.channel}) was left by a process that is gone (${gone}); ${decision.reason}`,
  ];
  for (const { action, write } of decision.actions) {
    const reference = referenceOf(store, write.repository, write.tag);
    if (action === 'write') lines.push(`  wrote ${reference} -> ${short(write.to)}`);
    else if (action === 'restore') lines.push(`  put back ${reference} -> ${short(write.from)}`);
    else lines.push(`  removed ${reference}`);
  }
  for (const write of decision.conflicts)
    lines.push(`  left ${referenceOf(store, write.repository, write.tag)}: it points elsewhere now`);
  if (decision.settleLatest) lines.push('  latest settled on every artifact');
  if (decision.direction === 'forward' && journal.signs === 'rc')
    lines.push(
      '  its signatures may be missing: run the same `release promote --channel rc` again, or `release sign`',
    );
  if (decision.direction === 'forward' && journal.signs === 'release')
    lines.push(
      '  its signatures may be missing: run the same `release promote --channel release --from ...` again',
    );
  return lines.join('\n');
}
