import { readManifests } from '../../deployment-files/read-manifests.ts';
import { manifestSources, releaseTarget } from '../../deployment-files/release-target.ts';
import { manifestFindings, manifestRows } from '../../gitops/manifest-findings.ts';
import { planBump } from '../../gitops/plan-bump.ts';
import { exitCodeOf, renderReport, reportJson } from '../../verify/report.ts';
import type { DeploymentReport } from '../../verify/types.ts';
import { baseContext, type GlobalOptions } from '../command-context.ts';
import { printJson, printLine } from '../output.ts';

/**
 * `release verify --manifests <dir>`: offline, no cluster. The deployment files are read and
 * planned as `release bump` would plan them; every place bump would change is drift (named by file
 * and key), every image of the release with no place is missing. The report and `--json` are
 * verify's own, with one row per place.
 */
export async function verifyManifests(
  flags: GlobalOptions & { manifests: string; expect?: string | undefined },
): Promise<0 | 1 | 3> {
  const started = performance.now();
  const base = await baseContext(flags);
  const { target, from } = await releaseTarget(base, { version: flags.expect }, 'verify');
  const flag = flags.manifests || undefined;
  const files = await readManifests(
    flag === undefined ? base.configDir : base.cwd,
    manifestSources(base, flag),
  );
  const plan = planBump(files, target);
  const findings = manifestFindings(plan, target.tag);
  const exitCode = exitCodeOf(findings);
  const report: DeploymentReport = {
    url: `manifests:${flags.manifests || 'deploy.manifests'}`,
    inStep: exitCode === 0,
    reference: { tag: target.tag, from: flags.expect === undefined ? from : '--expect' },
    artifacts: manifestRows(plan, findings),
    findings,
    exitCode,
    elapsedMs: Math.round(performance.now() - started),
  };
  if (base.json) printJson(reportJson(report));
  else for (const line of renderReport(report)) printLine(line);
  return exitCode;
}
