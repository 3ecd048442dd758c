import type { Step } from '../../pipeline/step.ts';
import { probeEvidence } from '../../verify/probes/evidence.ts';
import { deployedImages, deployedVersion, storeTagOf } from './deployed-images.ts';
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
    const version = deployedVersion(ctx);
    if (!version) {
      ctx.evidence = [];
      io.progress('no readable tag to look up');
      return;
    }
    const images = deployedImages(ctx, await storeTagOf(ctx, version));
    const readings = await Promise.all(
      images.map((image) => probeEvidence(ctx.store!, ctx.trustedKey!, image)),
    );
    ctx.evidence = readings.flat();
    io.progress(
      ctx.evidence
        .map((e) => `${e.artifact}: SBOM ${e.sbom.status}, provenance ${e.provenance.status}`)
        .join('; '),
    );
  },
};
