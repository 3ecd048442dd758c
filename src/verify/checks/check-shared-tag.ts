import { sameTag } from '../../version/compare.ts';
import { DEFAULT_SKEW_POLICY, gradeSkew, type SkewPolicy } from '../../version/skew.ts';
import { type FixContext, fixFor, readingLabel } from '../fixes.ts';
import { isComparable, type Reference } from '../reference.ts';
import type { Finding, ProbeResult } from '../types.ts';
import { checkCli } from './check-cli.ts';
import { ruleOf } from './check-skew.ts';

/**
 * Every readable, well-formed version must be the reference tag (a leading `v` ignored), except
 * what the skew policy tolerates of web and CLI against the API (a warning, or nothing).
 */
export function checkSharedTag(
  live: ProbeResult[],
  reference: Reference | undefined,
  ctx: FixContext,
  policy: SkewPolicy = DEFAULT_SKEW_POLICY,
): Finding[] {
  if (!reference) return [];
  const api = live.find((r) => r.name === 'api');
  const firstCli = live.find((r) => r.name === 'cli');
  const findings: Finding[] = [];
  for (const r of live) {
    if (!isComparable(r.version!) || sameTag(r.version!, reference.tag)) continue;
    // Only the first svc on PATH runs; later copies are judged by checkCli. A CLI on its own
    // version line never has the service's tag: checkCli holds it to the API's minimum.
    if (r.name === 'cli' && (r !== firstCli || ctx.naming?.cli?.ownLine)) continue;
    const expecting = reference.from === '--expect';
    // Already said, with a better fix, by the API/worker and CLI checks.
    if (!expecting && r.name === 'worker' && api?.version && isComparable(api.version)) continue;
    if (r.name === 'cli' && checkCli(live, ctx).length > 0) continue;
    const verdict =
      reference.from === 'api' && (r.name === 'web' || r.name === 'cli')
        ? gradeSkew(`${r.name}-api`, reference.tag, r.version!, policy, api?.minCliVersion)
        : undefined;
    if (verdict?.grade === 'ok') continue;
    findings.push({
      code: expecting ? 'NOT_EXPECTED_TAG' : 'TAG_MISMATCH',
      message: expecting
        ? `${readingLabel(r)} at ${r.source} is ${r.version}, expected ${reference.tag}`
        : `${readingLabel(r)} at ${r.source} is ${r.version}, but the ${reference.from} is ${reference.tag}`,
      fix: fixFor(r.name, ctx, r.role),
      severity: verdict?.grade ?? 'drift',
      artifact: r.name,
      source: r.source,
      ...(verdict ? { rule: ruleOf(verdict) } : {}),
    });
  }
  return findings;
}
