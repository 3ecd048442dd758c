import { ExternalError } from '../../errors.ts';
import { attachEvidence, readEvidence } from '../../evidence/attach-evidence.ts';
import { restampedProvenance } from '../../evidence/provenance.ts';
import { childDigests } from '../../evidence/release-images.ts';
import { imageSubject, PREDICATE, statementBytes } from '../../evidence/statements.ts';
import type { Step } from '../../pipeline/step.ts';
import type { PromoteContext } from './promote-context.ts';

/**
 * A release re-stamped from an rc keeps the rc's evidence: each release image (and each child of
 * an index, paired with the rc's child in the same place) gets the rc's SBOM, now about the
 * release digest (the code layers are the rc's), and a provenance statement that names the rc
 * digest as a resolved dependency. Only evidence the release key vouches for is carried.
 */
export const promoteReleaseEvidenceStep: Step<PromoteContext> = {
  title: "Carry the release candidate's SBOM and provenance",
  writes: true,
  completesWrites: true,
  skip: (ctx) =>
    ctx.channel !== 'release'
      ? 'only a release re-stamped from an rc carries evidence over'
      : Object.keys(ctx.restamped ?? {}).length === 0
        ? 'nothing was re-stamped from a release candidate'
        : !ctx.signingKey
          ? 'no signing key: the release carries no signed evidence'
          : false,
  async run(ctx, io) {
    const key = ctx.signingKey!;
    for (const [artifact, image] of Object.entries(ctx.restamped!)) {
      const repository = ctx.plan!.artifacts.find((a) => a.artifact === artifact)!.repository;
      const release = image.manifest.descriptor.digest;
      const rcChildren = await childDigests(ctx.store, repository, image.from);
      const releaseChildren = await childDigests(ctx.store, repository, release);
      const pairs: [string, string][] = [
        [image.from, release],
        ...rcChildren.flatMap((rc, i): [string, string][] =>
          releaseChildren[i] ? [[rc, releaseChildren[i]!]] : [],
        ),
      ];
      let carried = 0;
      let missing = 0;
      try {
        for (const [rcDigest, digest] of pairs) {
          const rc = { repository, digest: rcDigest };
          const [sbom] = (await readEvidence(ctx.store, key.publicKey, { ...rc, kind: 'sbom' })).filter(
            (e) => e.status === 'valid',
          );
          const [provenance] = (
            await readEvidence(ctx.store, key.publicKey, { ...rc, kind: 'provenance' })
          ).filter((e) => e.status === 'valid');
          if (!sbom || !provenance) missing++;
          const target = { repository, digest };
          if (sbom) {
            const statement = statementBytes(
              [imageSubject(repository, digest)],
              PREDICATE.sbom,
              sbom.statement!.predicate,
            );
            const attached = await attachEvidence(ctx.store, key, { ...target, kind: 'sbom' }, statement, {
              formats: ctx.config.signing?.formats,
            });
            ctx.warnings.push(...attached.warnings);
            carried++;
          }
          if (provenance) {
            const statement = restampedProvenance(provenance.statement!.predicate, {
              repository,
              digest,
              version: ctx.plan!.tag,
              rcDigest,
            });
            await attachEvidence(ctx.store, key, { ...target, kind: 'provenance' }, statement, {
              formats: ctx.config.signing?.formats,
            });
          }
        }
      } catch (error) {
        throw new ExternalError(
          'RELEASE_EVIDENCE_FAILED',
          `${ctx.plan!.tag} is tagged but ${artifact}'s evidence is not carried over: ${(error as Error).message}`,
          { hint: 'run this promotion again once the store answers', cause: error },
        );
      }
      if (missing)
        ctx.warnings.push(
          `${artifact}: ${missing} rc image(s) of ${image.from.slice(0, 19)} have no signed SBOM or provenance to carry to the release`,
        );
      io.progress(`${artifact}: ${carried}/${pairs.length} carried`);
    }
  },
};
