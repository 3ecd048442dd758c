import { parseVersion } from '../version/parse.ts';
import { displayTag } from './fixes.ts';
import type { ProbeResult } from './types.ts';

/** The tag every artifact must share, and where it was read. */
export interface Reference {
  tag: string;
  /** `--expect`, or the artifact the tag was read from. */
  from: string;
}

/** A version that can be "in step": it has an order and was not built from a dirty tree. */
export function isComparable(version: string): boolean {
  const parsed = parseVersion(version);
  return 'core' in parsed && !parsed.dirty;
}

/**
 * The tag everything must share: `--expect` when given; else the API's (the operator pointed at
 * it); else, when the API cannot say, the tag most readings agree on.
 */
export function referenceOf(live: ProbeResult[], expect?: string): Reference | undefined {
  if (expect !== undefined) return { tag: expect, from: '--expect' };
  const api = live.find((r) => r.name === 'api');
  if (api?.version && isComparable(api.version)) return { tag: api.version, from: 'api' };
  const votes = new Map<string, { tag: string; count: number; from: string }>();
  for (const r of live) {
    if (!r.version || !isComparable(r.version)) continue;
    const key = displayTag(r.version);
    const vote = votes.get(key) ?? { tag: r.version, count: 0, from: r.name };
    vote.count += 1;
    votes.set(key, vote);
  }
  const best = [...votes.values()].sort((a, b) => b.count - a.count)[0];
  return best ? { tag: best.tag, from: best.from } : undefined;
}
