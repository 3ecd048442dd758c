import { RuleError, UsageError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { readPublicKey } from '../../signing/key-files.ts';
import { shortKeyId } from '../../signing/keys.ts';
import { checkImageSetSignature } from '../../signing/platform-signatures.ts';
import type { PromoteContext } from './promote-context.ts';

/**
 * `release promote --channel release --from <rc>`: every source digest (the exact bytes the next
 * step will tag) must carry a valid signature from the configured key, or nothing is written; for a
 * multi-platform index, the index and each platform child (what a node actually runs).
 * All artifacts are checked before refusing, so one run names every problem.
 * A release from its own build (no `--from`) is held to the same once `signing.publicKey` is
 * configured: `latest` follows the release, and must never move to bytes nobody signed.
 */
export const promoteCheckSignaturesStep: Step<PromoteContext> = {
  title: "Check the release candidate's signatures",
  skip: (ctx) =>
    ctx.channel !== 'release'
      ? `the ${ctx.channel} channel does not need a signed source`
      : !ctx.from && !ctx.config.signing?.publicKey
        ? 'not promoted from a release candidate (no --from) and no signing.publicKey: nothing signed to check'
        : false,
  async run(ctx, io) {
    const trusted = await readPublicKey(ctx);
    if (!trusted) {
      throw new UsageError(
        'SIGNING_NO_PUBLIC_KEY',
        `releasing from ${ctx.from} checks its signatures, and signing.publicKey is not configured`,
        {
          hint: 'set signing.publicKey in the config to the .pub file of the key that signs release candidates',
        },
      );
    }
    const artifacts: NonNullable<NonNullable<PromoteContext['signing']>['artifacts']> = {};
    const problems: string[] = [];
    // The exact manifests the next steps re-stamp and tag: resolved once here, then held by digest.
    for (const source of ctx.sources!) {
      const { artifact, repository } = source;
      const found = await ctx.store.resolve(repository, source.reference);
      if (!found) {
        throw new UsageError('SOURCE_MISSING', `${ctx.store.name}/${repository} has no ${source.reference}`, {
          hint: 'pass --from with a tag or digest that exists in every image',
        });
      }
      source.reference = found.digest;
      const image = { repository, digest: found.digest };
      const check = await checkImageSetSignature(ctx.store, trusted, image);
      io.progress(`${artifact}: ${check.status}`);
      const signature = check.signatures.find((s) => s.valid)?.digest;
      const platforms = check.platforms?.map((p) => {
        const childSignature = p.check.signatures.find((s) => s.valid)?.digest;
        return {
          platform: p.platform,
          digest: p.digest,
          ...(childSignature ? { signature: childSignature } : {}),
        };
      });
      if (check.status === 'valid')
        artifacts[artifact] = {
          digest: image.digest,
          ...(signature ? { signature } : {}),
          ...(platforms ? { platforms } : {}),
        };
      else
        problems.push(
          `${artifact} (${image.repository}@${image.digest}): ${check.status === 'missing' ? 'unsigned, ' : 'wrongly signed, '}${check.reason}`,
        );
    }
    if (problems.length > 0 && !ctx.from) {
      throw new RuleError(
        'RELEASE_NOT_SIGNED',
        `refusing to release ${ctx.version} from its build: signing.publicKey is configured and not every image carries a valid signature from key ${shortKeyId(trusted.keyId)}, so latest would follow unsigned bytes\n  ${problems.join('\n  ')}`,
        {
          hint: `release from the signed rc (\`release promote --channel release --from vX.Y.Z-rc.N --version ${ctx.version}\`), or sign these digests with \`release sign\` first`,
        },
      );
    }
    if (problems.length > 0) {
      throw new RuleError(
        'RC_SIGNATURE_INVALID',
        `refusing to release ${ctx.version} from ${ctx.from}: not every image carries a valid signature from key ${shortKeyId(trusted.keyId)}\n  ${problems.join('\n  ')}`,
        {
          hint: `promote only what \`release promote --channel rc\` (or \`release sign\`) signed; if ${ctx.from} was re-pushed, find the signed digest and pass --from <digest>`,
        },
      );
    }
    // By artifact name, as the plan lists them (the output and record read the same as before).
    const sorted = Object.fromEntries(Object.entries(artifacts).sort(([a], [b]) => a.localeCompare(b)));
    ctx.signing = { status: 'verified', keyId: trusted.keyId, artifacts: sorted };
  },
};
