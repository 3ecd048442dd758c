import { sameTag } from '../version/compare.ts';

/** How long a converged service may keep reporting another version before that is final. */
export const WRONG_VERSION_GRACE_MS = 2_000;

export type VersionGate =
  | { status: 'reached' }
  /** `wrongSince`: hand it back on the next call (set while a wrong version is being seen). */
  | { status: 'waiting'; reason: string; wrongSince?: number }
  | { status: 'wrong'; reason: string };

/**
 * Does a service that has converged on the target digest report the target tag? Every reading
 * must equal it (ignoring one leading `v`). Nothing readable yet: wait (a server still starting).
 * A readable other version is final once it has lasted `graceMs` (a routing mesh catching up is
 * given that long): an image that reports the wrong version will not start reporting the right
 * one, so waiting for the deadline would only delay the rollback.
 */
export function judgeVersions(input: {
  seen: string[];
  tag: string;
  /** When a wrong version was first seen in the current run of wrong readings, else undefined. */
  wrongSince: number | undefined;
  now: number;
  graceMs?: number;
}): VersionGate {
  if (input.seen.length > 0 && input.seen.every((v) => sameTag(v, input.tag))) return { status: 'reached' };
  const wrong = input.seen.filter((v) => !sameTag(v, input.tag));
  if (wrong.length === 0) return { status: 'waiting', reason: 'no version readable yet' };
  const reason = `reports ${[...new Set(wrong)].join(', ')}, not ${input.tag}`;
  const since = input.wrongSince ?? input.now;
  return input.now - since >= (input.graceMs ?? WRONG_VERSION_GRACE_MS)
    ? { status: 'wrong', reason }
    : { status: 'waiting', reason, wrongSince: since };
}
