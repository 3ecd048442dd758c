import { imagesWithRoles } from '../../config/artifacts.ts';
import type { Step } from '../../pipeline/step.ts';
import { checkEvidence } from '../../verify/checks/check-evidence.ts';
import { checkProvenance } from '../../verify/checks/check-provenance.ts';
import { checkReleaseImages } from '../../verify/checks/check-release-images.ts';
import { checkSignatures } from '../../verify/checks/check-signatures.ts';
import { exitCodeOf, statusOf } from '../../verify/report.ts';
import type { ArtifactRow, Finding } from '../../verify/types.ts';
import type { ReleaseVerifyContext } from './release-verify-context.ts';

/**
 * The verdict on the release as the store holds it: every image there and stating its tag, signed,
 * attested and in the release set, a release its rc re-stamped. One row per image, its roles named.
 */
export const releaseCheckStep: Step<ReleaseVerifyContext> = {
  title: 'Check the release is whole and in step',
  run(ctx, io) {
    const findings: Finding[] = [
      ...checkReleaseImages(ctx.images ?? []),
      ...checkSignatures(ctx.signatures ?? [], ctx.requireSignature),
      ...(ctx.evidence
        ? checkEvidence(
            ctx.evidence,
            {
              images: imagesWithRoles(ctx.config),
              cli: Object.values(ctx.config.artifacts).some((a) => a.role === 'cli' || 'package' in a),
            },
            ctx.requireAttestations,
          )
        : []),
      ...checkProvenance(ctx.provenance ?? [], ctx.requireSignature),
    ];
    const rows = (ctx.images ?? []).map((image): ArtifactRow => {
      const others = image.roles.filter((r) => r !== image.artifact);
      return {
        name: image.artifact,
        source: `${image.repository}:${image.tag}`,
        version: image.version,
        ...statusOf(findings.filter((f) => f.artifact === image.artifact)),
        ...(others.length ? { detail: `also run as ${others.join(', ')}` } : {}),
      };
    });
    const exitCode = exitCodeOf(findings);
    ctx.report = {
      url: ctx.store.name,
      inStep: exitCode === 0,
      reference: { tag: ctx.tag, from: '--expect' },
      artifacts: rows,
      findings,
      ...(ctx.signatures ? { signatures: ctx.signatures } : {}),
      ...(ctx.provenance?.length ? { provenance: ctx.provenance } : {}),
      ...(ctx.evidence ? { evidence: ctx.evidence } : {}),
      exitCode,
      elapsedMs: Math.round(performance.now() - ctx.startedAt),
    };
    io.progress(exitCode === 0 ? 'the release is whole' : `${findings.length} finding(s)`);
  },
};
