import { imageOfRole } from '../../config/artifacts.ts';
import { RuleError } from '../../errors.ts';
import type { Step } from '../../pipeline/step.ts';
import { parseVersion } from '../../version/parse.ts';
import { record, type TargetContext } from './upgrade-context.ts';

/**
 * A release candidate or full release is signed (DESIGN "Channels and tags"): with
 * `signing.publicKey` configured, every target digest must carry a valid signature from that key
 * before any service changes.
 */
export const checkTargetSignaturesStep: Step<TargetContext> = {
  title: 'Check the target images are signed',
  skip: (ctx) => {
    if (!ctx.trustedKey) return 'no signing.publicKey in the config';
    const kind = parseVersion(ctx.tag).kind;
    return kind === 'rc' || kind === 'release'
      ? false
      : `${ctx.tag} is a ${kind} build: not signed by policy`;
  },
  async run(ctx, io) {
    const { checkImageSignature } = await import('../../signing/image-signature.ts');
    const checks = await Promise.all(
      ctx.targets!.map(async (t) => ({
        target: t,
        check: await checkImageSignature(ctx.store, ctx.trustedKey!, {
          repository: imageOfRole(ctx.config, t.role),
          digest: t.digest,
        }),
      })),
    );
    const bad = checks.filter((c) => c.check.status !== 'valid');
    if (bad.length > 0) {
      throw new RuleError(
        'UPGRADE_UNSIGNED',
        `refusing to upgrade to ${ctx.tag}: ${bad.map((b) => `${b.target.role} ${b.target.repository}@${b.target.digest} ${b.check.status === 'missing' ? 'is not signed' : 'is wrongly signed'} (${b.check.reason})`).join('; ')}`,
        {
          hint: 'upgrade to a signed release (release promote --channel rc signs), or sign these digests if you trust them: release sign',
        },
      );
    }
    record(ctx, `signatures valid for ${checks.map((c) => c.target.role).join(', ')}`);
    io.progress('every target digest is signed');
  },
};
