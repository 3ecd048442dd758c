import { sameTag } from '../../version/compare.ts';
import { displayTag, type FixContext, fixForJob } from '../fixes.ts';
import { isComparable, type Reference } from '../reference.ts';
import type { Finding, ProbeResult } from '../types.ts';

/**
 * One-shot jobs (a migration) judged by their last run: exited 0 on the deployment's tag is in
 * step; a run that failed, that ran another release, or no run at all is drift, since the API of
 * this release may need what the job did. A job is never unreachable: a container that exited is
 * what a job leaves behind, and no container is a job that did not run.
 */
export function checkJobs(
  results: ProbeResult[],
  reference: Reference | undefined,
  ctx: FixContext,
): Finding[] {
  const tag = reference?.tag;
  const fixCtx = { ...ctx, tag };
  const findings: Finding[] = [];
  for (const r of results.filter((x) => x.name === 'job')) {
    const job = r.role ?? 'job';
    const at = { severity: 'drift' as const, artifact: 'job', source: r.source };
    if (r.error !== undefined) {
      findings.push({
        ...at,
        code: 'JOB_NOT_RUN',
        message: `job ${job}: no run found (${r.error})`,
        fix: fixForJob(fixCtx, job),
      });
      continue;
    }
    if (r.running !== false) {
      findings.push({
        ...at,
        severity: 'notice',
        code: 'JOB_RUNNING',
        message: `job ${job} at ${r.source} (${r.version ?? '?'}) is still running: verify again once it has ended`,
        fix: `wait for ${job} to exit, then run release verify again`,
      });
      continue;
    }
    if (r.exitCode !== 0) {
      findings.push({
        ...at,
        code: 'JOB_FAILED',
        message: `job ${job} at ${r.source} (${r.version ?? '?'}) ${r.exitCode === undefined || r.exitCode < 0 ? 'did not complete' : `exited with code ${r.exitCode}`}: what the release needs of it may not be done`,
        fix: `read its log (${logCommand(r)}), mend the cause, then ${fixForJob(fixCtx, job)}`,
      });
      continue;
    }
    if (tag && r.version && isComparable(r.version) && !sameTag(r.version, tag)) {
      findings.push({
        ...at,
        code: 'JOB_NOT_ON_RELEASE',
        message: `the last run of job ${job} (${r.source}) was ${r.version}, but the ${reference!.from} is ${displayTag(tag)}: it has not run on this release`,
        fix: fixForJob(fixCtx, job),
      });
    }
  }
  return findings;
}

/** The command that shows a run's log: its container's, or its Swarm service's. */
function logCommand(r: ProbeResult): string {
  const [kind, id] = r.source.split(' ');
  return kind === 'service' ? `docker service logs ${id}` : `docker logs ${id}`;
}
