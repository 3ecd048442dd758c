import { namesVersion } from '../../channels/tags.ts';
import { sameTag } from '../../version/compare.ts';
import { displayTag } from '../fixes.ts';
import type { Finding, ProbeResult } from '../types.ts';

/**
 * A worker container that claims one version in `SERVICE_VERSION` but runs an image labelled or
 * tagged with another: the code that runs is the image's, whatever the variable says.
 */
export function checkWorkerEvidence(r: ProbeResult): Finding[] {
  const { env, label, tag } = r.evidence ?? {};
  const built = label ?? (tag && namesVersion(tag) ? tag : undefined);
  if (!env || !built || sameTag(env, built) || r.running === false) return [];
  return [
    {
      code: 'WORKER_ENV_OVERRIDES_IMAGE',
      message: `${r.source} sets SERVICE_VERSION=${env} but runs ${r.image ?? 'an image'} built as ${built}: the code that runs is ${built}`,
      fix: `run the image built for ${displayTag(env)} instead of overriding SERVICE_VERSION on an older image`,
      severity: 'drift',
      artifact: 'worker',
      source: r.source,
    },
  ];
}
