import { ExternalError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { platformsSigned, signImageSet } from '../../signing/platform-signatures.ts';
import type { PromoteContext } from './promote-context.ts';

/**
 * The rc channel's last step on the store: sign each promoted digest (never the tag) and read the
 * signature back; a multi-platform index has each platform child signed, then the index. With
 * `--no-sign` nothing is signed, and the output and record say so.
 */
export const promoteSignStep: Step<PromoteContext> = {
  title: 'Sign the release candidate',
  writes: true,
  completesWrites: true, // after a stop too: an unsigned rc tag would be refused by its release
  skip: (ctx) => (ctx.channel !== 'rc' ? `only the rc channel is signed (${ctx.channel} is not)` : false),
  async run(ctx, io) {
    if (ctx.sign === false) {
      ctx.signing = { status: 'unsigned', reason: '--no-sign' };
      ctx.warnings.push(
        `${ctx.plan!.tag} was promoted unsigned (--no-sign): \`release promote --channel release --from ${ctx.plan!.tag}\` will refuse it until \`release sign ${ctx.plan!.tag}\` signs it`,
      );
      io.progress('not signed (--no-sign)');
      return;
    }
    const key = ctx.signingKey!;
    const artifacts: NonNullable<NonNullable<PromoteContext['signing']>['artifacts']> = {};
    for (const a of ctx.plan!.artifacts) {
      const image = { repository: a.repository, digest: a.source };
      let outcome: Awaited<ReturnType<typeof signImageSet>>;
      try {
        outcome = await signImageSet(ctx.store, key, image, a.artifact, {
          formats: ctx.config.signing?.formats,
        });
      } catch (error) {
        // The tags are written; only the signatures are missing, and signing again completes it.
        throw new ExternalError(
          'RC_SIGNING_FAILED',
          `${ctx.plan!.tag} is tagged but not signed: ${(error as Error).message}`,
          {
            hint: `run \`release sign ${ctx.plan!.tag}\` (or this promotion again) once the store answers`,
            cause: error,
          },
        );
      }
      artifacts[a.artifact] = {
        digest: a.source,
        signature: outcome.signature,
        ...(outcome.platforms ? { platforms: outcome.platforms } : {}),
      };
      io.progress(`${a.artifact}: ${outcome.status}${platformsSigned(outcome.platforms)}`);
    }
    ctx.signing = { status: 'signed', keyId: key.publicKey.keyId, artifacts };
  },
};
