import { referenceOf } from '../../verify/checks.ts';
import type { Version } from '../../version/kinds.ts';
import { parseVersion } from '../../version/parse.ts';
import type { VerifyContext } from './verify-context.ts';

/**
 * The version the live deployment reports (or `--expect` names): what the store steps look up.
 * Undefined when no running artifact reported a readable one.
 */
export function deployedVersion(ctx: VerifyContext): Version | undefined {
  const live = ctx.probed!.results.filter((r) => r.version !== undefined && r.running !== false);
  const reference = referenceOf(live, ctx.options.expect);
  return reference ? parseVersion(reference.tag) : undefined;
}

/** Each probed image of the deployment at `tag`, with the digests its containers run (--docker). */
export function deployedImages(ctx: VerifyContext, tag: string) {
  return (['api', 'worker', 'web'] as const)
    .filter((name) => ctx.probed!.probed.includes(name))
    .map((artifact) => ({
      artifact,
      repository: ctx.options.images[artifact],
      tag,
      running: ctx.registry?.find((r) => r.artifact === artifact)?.running ?? [],
    }));
}
