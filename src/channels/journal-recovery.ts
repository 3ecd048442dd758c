import type { Channel } from './channel-of.ts';
import type { TagKind } from './tags.ts';

/**
 * What to do with the journal a killed promotion left (DESIGN.md "Channels and tags": an
 * interrupted promotion never leaves the version tag on a subset of artifacts once any command
 * touches the store again). Pure: the caller reads the store and carries the decision out.
 */

/** One tag write a promotion announced before its first write. */
export interface JournalWrite {
  artifact: string;
  repository: string;
  tag: string;
  kind: TagKind;
  /** Where the tag pointed before (null: it did not exist). */
  from: string | null;
  to: string;
}

/** What the store shows now for one journal write. */
export interface WriteObservation {
  /** The tag's digest now (null: absent). */
  now: string | null;
  /** Whether the manifest `to` is in the repository (by digest), so the tag can be written. */
  targetPresent: boolean;
}

export type RecoveryAction =
  | { action: 'write'; write: JournalWrite }
  | { action: 'restore'; write: JournalWrite }
  | { action: 'remove'; write: JournalWrite };

export interface RecoveryDecision {
  direction: 'forward' | 'back';
  /** Why this direction, for the notice. */
  reason: string;
  /** Tag changes to make, in order. */
  actions: RecoveryAction[];
  /** Release channel: `latest` is left to the settle (never written blindly: it may be behind). */
  settleLatest: boolean;
  /** Tags that already point elsewhere than either end of the write: left alone, named. */
  conflicts: JournalWrite[];
}

/**
 * Forward when it can be done: every target manifest is present and no version tag was taken by
 * another digest meanwhile. Forward is preferred because it only adds version tags (which a
 * concurrent settle relies on, see `registry/settle-latest.ts`) and needs no tag deletion, which
 * many registries refuse. Otherwise back: every tag this promotion already wrote is put back where
 * it was (removed when it did not exist), so no artifact keeps the version tag alone.
 */
export function decideRecovery(
  channel: Channel,
  writes: JournalWrite[],
  observed: WriteObservation[],
): RecoveryDecision {
  const settleLatest = channel === 'release';
  const conflicts = writes.filter((w, i) => {
    const now = observed[i]!.now;
    return now !== w.to && now !== w.from && w.kind !== 'floating';
  });
  const missing = writes.filter((w, i) => !observed[i]!.targetPresent && observed[i]!.now !== w.to);
  if (!conflicts.length && !missing.length) {
    const actions: RecoveryAction[] = writes
      .filter((w, i) => observed[i]!.now !== w.to && !(settleLatest && w.tag === 'latest'))
      .map((write) => ({ action: 'write', write }));
    return {
      direction: 'forward',
      reason: actions.length
        ? `every image is present: the ${actions.length} missing tag write(s) are completed`
        : 'every tag was already written',
      actions,
      settleLatest,
      conflicts,
    };
  }
  const actions: RecoveryAction[] = writes
    .filter((w, i) => observed[i]!.now === w.to && w.from !== w.to)
    .filter((w) => !(settleLatest && w.tag === 'latest'))
    .map((write) => ({ action: write.from === null ? 'remove' : 'restore', write }));
  const why = missing.length
    ? `${missing.map((w) => `${w.repository}@${w.to.slice(0, 19)}`).join(', ')} missing`
    : `${conflicts.map((w) => `${w.repository}:${w.tag}`).join(', ')} now point(s) elsewhere`;
  return {
    direction: 'back',
    reason: `the promotion cannot be completed (${why}): the tags it wrote are put back`,
    actions,
    settleLatest,
    conflicts,
  };
}
