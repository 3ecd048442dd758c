import { DEFAULT_SKEW_POLICY, gradeSkew, type SkewPolicy, type SkewVerdict } from '../../version/skew.ts';
import type { Finding, ProbeResult } from '../types.ts';

const GRADE_RANK = { ok: 0, warn: 1, drift: 2 } as const;

/**
 * Each artifact against the API, by the skew policy: one verdict per pair, the worst over the
 * readings of that artifact (several worker containers). Only the first `svc` on PATH runs, so it
 * alone is the CLI. Nothing when the API could not be read: there is nothing to be near.
 */
export function gradeDeployment(
  live: ProbeResult[],
  policy: SkewPolicy = DEFAULT_SKEW_POLICY,
): SkewVerdict[] {
  const api = live.find((r) => r.name === 'api');
  if (!api?.version) return [];
  const verdicts: SkewVerdict[] = [];
  for (const [name, pair] of [
    ['worker', 'worker-api'],
    ['web', 'web-api'],
    ['cli', 'cli-api'],
  ] as const) {
    const readings = live.filter((r) => r.name === name);
    const judged = (name === 'cli' ? readings.slice(0, 1) : readings).map((r) =>
      gradeSkew(pair, api.version!, r.version!, policy, api.minCliVersion),
    );
    const worst = judged.sort((a, b) => GRADE_RANK[b.grade] - GRADE_RANK[a.grade])[0];
    if (worst) verdicts.push(worst);
  }
  return verdicts;
}

/** The rule a finding names: the config key or spec rule, and where the pair stands against it. */
export function ruleOf(verdict: SkewVerdict): NonNullable<Finding['rule']> {
  return { id: verdict.rule, reason: verdict.reason };
}
