import { sameTag } from '../../version/compare.ts';
import { DEFAULT_SKEW_POLICY, gradeSkew, type SkewPolicy } from '../../version/skew.ts';
import { displayTag } from '../fixes.ts';
import { isComparable } from '../reference.ts';
import type { Finding, ProbeResult } from '../types.ts';
import { ruleOf } from './check-skew.ts';

/** The spec's consequence of API/worker drift (section 7), named in the finding. */
export const API_WORKER_CONSEQUENCE =
  'workflows compile but fail at run time when the worker cannot find a method the API serialized';

/**
 * API and worker must be the same tag (spec section 9, rule 5), whatever the reference is; only
 * two development builds may be graded otherwise (`skew.dev`).
 */
export function checkApiWorker(
  live: ProbeResult[],
  policy: SkewPolicy = DEFAULT_SKEW_POLICY,
  /** The variable the service reads its version from (`versionVariables.server`). */
  variable = 'SERVICE_VERSION',
): Finding[] {
  const api = live.find((r) => r.name === 'api');
  if (!api?.version || !isComparable(api.version)) return [];
  return live
    .filter((r) => r.name === 'worker' && isComparable(r.version!) && !sameTag(r.version!, api.version!))
    .map((worker) => ({ worker, verdict: gradeSkew('worker-api', api.version!, worker.version!, policy) }))
    .filter(({ verdict }) => verdict.grade !== 'ok')
    .map(({ worker, verdict }) => ({
      code: 'API_WORKER_MISMATCH',
      message: `API is ${api.version} but the worker at ${worker.source} is ${worker.version}: ${API_WORKER_CONSEQUENCE}`,
      fix: `upgrade the API and worker together: run ${displayTag(api.version)} for both (${variable}=${displayTag(api.version)}), never one without the other`,
      severity: verdict.grade as 'drift' | 'warn',
      artifact: 'worker' as const,
      source: worker.source,
      rule: ruleOf(verdict),
    }));
}
