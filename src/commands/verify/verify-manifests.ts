import { readManifests } from '../../deployment-files/read-manifests.ts';
import { manifestSources, releaseTarget } from '../../deployment-files/release-target.ts';
import { checkedExpect } from '../../deployment-targets/checked-expect.ts';
import { given } from '../../deployment-targets/deployment-engine-entry.ts';
import { engineFlags } from '../../deployment-targets/deployment-targets.ts';
import { UsageError } from '../../errors.ts';
import { manifestFindings, manifestRows } from '../../gitops/manifest-findings.ts';
import { planBump } from '../../gitops/plan-bump.ts';
import { exitCodeOf, renderReport, reportJson } from '../../verify/report.ts';
import type { DeploymentReport } from '../../verify/types.ts';
import { baseContext } from '../command-context.ts';
import { printJson, printLine } from '../output.ts';
import type { VerifyFlags } from './verify-flags.ts';
import { finish } from './verify-report.ts';

/**
 * `release verify --manifests [dir]`: offline, no cluster, and no live target beside it. The deployment files are read and
 * planned as `release bump` would plan them; every place bump would change is drift (named by file
 * and key), every image of the release with no place is missing. The report and `--json` are
 * verify's own, with one row per place.
 */
export async function verifyManifests(flags: VerifyFlags): Promise<void> {
  const live = [flags.url, flags.all, ...engineFlags().map((f) => flags[f])].some(given);
  if (live || flags.registry !== undefined)
    throw new UsageError('VERIFY_MANIFESTS_WITH_TARGET', '--manifests checks files, not a live deployment', {
      hint: 'run release verify --manifests <dir> on its own (add --expect <tag> to check another tag)',
    });
  if (flags.expect !== undefined) checkedExpect(flags.expect);
  const manifests = typeof flags.manifests === 'string' ? flags.manifests : '';
  const started = performance.now();
  const base = await baseContext(flags);
  const { target, from } = await releaseTarget(base, { version: flags.expect }, 'verify');
  const flag = manifests || undefined;
  const files = await readManifests(
    flag === undefined ? base.configDir : base.cwd,
    manifestSources(base, flag),
  );
  const plan = planBump(files, target);
  const findings = manifestFindings(plan, target.tag);
  const exitCode = exitCodeOf(findings);
  const report: DeploymentReport = {
    url: `manifests:${manifests || 'deploy.manifests'}`,
    inStep: exitCode === 0,
    reference: { tag: target.tag, from: flags.expect === undefined ? from : '--expect' },
    artifacts: manifestRows(plan, findings),
    findings,
    exitCode,
    elapsedMs: Math.round(performance.now() - started),
  };
  if (base.json) printJson(reportJson(report));
  else for (const line of renderReport(report)) printLine(line);
  finish(exitCode, 'the manifests are not in step');
}
