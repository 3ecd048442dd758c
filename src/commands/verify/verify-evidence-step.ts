import type { Step } from '../../pipeline/step.ts';
import { referenceOf } from '../../verify/checks.ts';
import { probeEvidence } from '../../verify/probes/evidence.ts';
import { imageTagOf } from '../../version/image-tag.ts';
import { parseVersion } from '../../version/parse.ts';
import type { VerifyContext } from './verify-context.ts';

/**
 * `release verify` with a store and `signing.publicKey`: per deployed image digest, its SBOM and
 * provenance signed by the configured key, and the release set of the deployment's tag.
 */
export const verifyEvidenceStep: Step<VerifyContext> = {
  title: 'Check the SBOMs, provenance and release set',
  skip: (ctx) =>
    !ctx.trustedKey
      ? 'no signing.publicKey in the config'
      : !ctx.store || !ctx.checkAttestations
        ? 'pass --registry or --require-attestations to check the evidence'
        : false,
  async run(ctx, io) {
    const probed = ctx.probed!;
    const live = probed.results.filter((r) => r.version !== undefined && r.running !== false);
    const reference = referenceOf(live, ctx.options.expect);
    if (!reference) {
      ctx.evidence = [];
      io.progress('no readable tag to look up');
      return;
    }
    const tag = imageTagOf(parseVersion(reference.tag));
    const images = (['api', 'worker', 'web'] as const).filter((name) => probed.probed.includes(name));
    const readings = await Promise.all(
      images.map((artifact) =>
        probeEvidence(ctx.store!, ctx.trustedKey!, {
          artifact,
          repository: ctx.options.images[artifact],
          tag,
          running: ctx.registry?.find((r) => r.artifact === artifact)?.running ?? [],
        }),
      ),
    );
    ctx.evidence = readings.flat();
    io.progress(
      ctx.evidence
        .map((e) => `${e.artifact}: SBOM ${e.sbom.status}, provenance ${e.provenance.status}`)
        .join('; '),
    );
  },
};
