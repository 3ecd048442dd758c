import { artifactWithRole } from '../../config/artifacts.ts';
import { ExternalError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { platformsSigned, signImageSet } from '../../signing/platform-signatures.ts';
import type { SignedReversion } from '../../signing/statement.ts';
import type { PromoteContext } from './promote-context.ts';

/** What of this artifact's release was rebuilt or re-written from the rc, for its statement. */
function reversionOf(ctx: PromoteContext, artifact: string): { reversion?: SignedReversion[] } {
  const parts: SignedReversion[] = [];
  const rebuilt = ctx.imageRebuilds?.[artifact];
  if (rebuilt)
    parts.push({ part: artifact, strategy: rebuilt.strategy, differs: rebuilt.versionOnly.map(shown) });
  // The CLI archive rides in the API image's version layer.
  if (ctx.cliReversion && artifactWithRole(ctx.config, 'api')?.name === artifact)
    parts.push({
      part: 'cli',
      strategy: ctx.cliReversion.strategy,
      differs: (ctx.cliReversion.comparison?.versionOnly ?? []).map(shown),
    });
  return parts.length ? { reversion: parts } : {};
}

function shown(d: { path: string; renamed?: string | undefined; reason: string }) {
  return { path: d.path, ...(d.renamed ? { renamed: d.renamed } : {}), reason: d.reason };
}

/**
 * A full release re-stamped from an rc is signed too: each release digest with a
 * statement naming the rc digest it was made from, so the signature vouches for "these bytes are
 * the signed rc, re-stamped", and `release verify` can hold the release to the rc's code layers.
 * An index: each platform child is signed bound to the rc child of its platform, then the index.
 */
export const promoteSignReleaseStep: Step<PromoteContext> = {
  title: 'Sign the release, bound to its release candidate',
  writes: true,
  completesWrites: true, // after a stop too: latest must not point at an unsigned release
  skip: (ctx) =>
    ctx.channel !== 'release'
      ? `only a full release is bound to an rc (${ctx.channel} is not)`
      : Object.keys(ctx.restamped ?? {}).length === 0
        ? 'nothing was re-stamped from a release candidate'
        : !ctx.signingKey
          ? 'no signing key (--key, RELEASE_SIGNING_KEY or signing.privateKey): the release is not signed'
          : false,
  async run(ctx, io) {
    const key = ctx.signingKey!;
    const artifacts: NonNullable<NonNullable<PromoteContext['releaseSigning']>['artifacts']> = {};
    for (const [artifact, image] of Object.entries(ctx.restamped!)) {
      const repository = ctx.plan!.artifacts.find((a) => a.artifact === artifact)!.repository;
      const digest = image.manifest.descriptor.digest;
      let outcome: Awaited<ReturnType<typeof signImageSet>>;
      try {
        outcome = await signImageSet(
          ctx.store,
          key,
          { repository, digest, madeFrom: image.from, ...reversionOf(ctx, artifact) },
          artifact,
          { formats: ctx.config.signing?.formats },
        );
      } catch (error) {
        throw new ExternalError(
          'RELEASE_SIGNING_FAILED',
          `${ctx.plan!.tag} is tagged but not signed: ${(error as Error).message}`,
          {
            hint: 'run this promotion again once the store answers (the tags are in place; it signs what is missing)',
            cause: error,
          },
        );
      }
      artifacts[artifact] = {
        digest,
        signature: outcome.signature,
        madeFrom: image.from,
        ...(outcome.platforms ? { platforms: outcome.platforms } : {}),
      };
      io.progress(
        `${artifact}: ${outcome.status}, bound to ${image.from.slice(0, 19)}${platformsSigned(outcome.platforms)}`,
      );
    }
    ctx.releaseSigning = { status: 'signed', keyId: key.publicKey.keyId, artifacts };
  },
};
