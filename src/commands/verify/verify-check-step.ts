import { imagesWithRoles } from '../../config/artifacts.ts';
import type { Step } from '../../pipeline/step.ts';
import { ownLineVerdict } from '../../verify/checks/check-cli.ts';
import { checkEvidence, type ExpectedSet } from '../../verify/checks/check-evidence.ts';
import { checkProvenance } from '../../verify/checks/check-provenance.ts';
import { checkDeployment } from '../../verify/checks.ts';
import { buildReport } from '../../verify/report.ts';
import type { ProbeResult } from '../../verify/types.ts';
import type { VerifyContext } from './verify-context.ts';

/**
 * What a complete release set names: every image the config builds (the roles run from one image
 * are named under the artifact that builds it, as promote writes the set), and the CLI archive.
 */
function expectedSet(ctx: VerifyContext): ExpectedSet {
  return {
    images: imagesWithRoles(ctx.config),
    cli: Object.values(ctx.config.artifacts).some((a) => a.role === 'cli' || 'package' in a),
  };
}

/** Compare what was read: one tag, nothing unknown, API with worker, the operator's CLI. */
export const verifyCheckStep: Step<VerifyContext> = {
  title: 'Check the artifacts are in step',
  run(ctx, io) {
    const probed = ctx.probed!;
    ctx.outcome = checkDeployment({
      apiUrl: ctx.target.url,
      results: probed.results,
      probed: probed.probed,
      images: ctx.options.images,
      ...(ctx.options.expect !== undefined ? { expect: ctx.options.expect } : {}),
      ...(ctx.options.skew ? { skew: ctx.options.skew } : {}),
      ...(ctx.options.naming ? { naming: ctx.options.naming } : {}),
      ...(ctx.registry ? { registry: ctx.registry } : {}),
      ...(ctx.signatures
        ? { signatures: ctx.signatures, requireSignature: Boolean(ctx.requireSignature) }
        : {}),
    });
    if (ctx.evidence)
      ctx.outcome.findings.push(
        ...checkEvidence(ctx.evidence, expectedSet(ctx), Boolean(ctx.requireAttestations)),
      );
    if (ctx.provenance)
      ctx.outcome.findings.push(...checkProvenance(ctx.provenance, Boolean(ctx.requireSignature)));
    const ms = Math.round(performance.now() - ctx.startedAt);
    ctx.report = buildReport(ctx.target, probed, ctx.outcome, ms, ctx.registry, ctx.signatures);
    if (ctx.options.naming?.cli?.ownLine) {
      // The CLI's row says its own version and its verdict against the API's minimum.
      const api = probed.results.find((r) => r.name === 'api');
      for (const row of ctx.report.artifacts.filter((a) => a.name === 'cli' && a.version !== undefined)) {
        const verdict = ownLineVerdict(
          { ...row, version: row.version! } as ProbeResult,
          api,
          ctx.options.naming.cli.scheme,
        );
        if (row.status === 'ok') row.why = verdict;
        row.detail = verdict;
      }
    }
    if (ctx.provenance) ctx.report.provenance = ctx.provenance;
    if (ctx.evidence) ctx.report.evidence = ctx.evidence;
    io.progress(ctx.report.inStep ? 'in step' : `${ctx.outcome.findings.length} finding(s)`);
  },
};
