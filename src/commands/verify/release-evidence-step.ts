import type { Step } from '../../pipeline/step.ts';
import { probeEvidence } from '../../verify/probes/evidence.ts';
import { probeSignatures } from '../../verify/probes/signature.ts';
import type { ReleaseVerifyContext } from './release-verify-context.ts';

/**
 * With `signing.publicKey`: each image's digest and every platform image of an index signed by
 * the release key, and its SBOM, provenance and the release set of the tag, each checked against
 * that key. Images whose tag is missing are said once, by the images step.
 */
export const releaseEvidenceStep: Step<ReleaseVerifyContext> = {
  title: 'Check the signatures, SBOMs, provenance and release set',
  skip: (ctx) => (ctx.trustedKey ? false : 'no signing.publicKey in the config'),
  async run(ctx, io) {
    const present = (ctx.images ?? []).filter((i) => i.digest !== undefined);
    const subjects = present.map((i) => ({
      artifact: i.artifact,
      repository: i.repository,
      tag: ctx.tag,
      running: [],
    }));
    const [signatures, evidence] = await Promise.all([
      Promise.all(
        subjects.map((s) =>
          probeSignatures(ctx.store, ctx.trustedKey!, s, {
            // As a deployment's verify: a config naming `legacy` holds every digest to its `.sig`.
            cosign: ctx.config.signing?.formats?.includes('legacy') ? 'require' : 'check',
          }),
        ),
      ),
      Promise.all(subjects.map((s) => probeEvidence(ctx.store, ctx.trustedKey!, s))),
    ]);
    ctx.signatures = signatures.flat();
    ctx.evidence = evidence.flat();
    io.progress(
      ctx.evidence
        .map(
          (e, i) =>
            `${e.artifact}: signature ${ctx.signatures![i]?.status}, SBOM ${e.sbom.status}, provenance ${e.provenance.status}`,
        )
        .join('; '),
    );
  },
};
