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

/**
 * Each image of the deployment at `tag`, with the digests its containers run (--docker): the
 * probed ones of API, worker and web, and the config's extra images (a `scheduler`), released in
 * step with them and checked alike.
 */
export function deployedImages(
  ctx: VerifyContext,
  tag: string,
): {
  artifact: string;
  repository: string;
  tag: string;
  running: { source: string; digest: string | undefined }[];
}[] {
  const running = (artifact: string) => ctx.registry?.find((r) => r.artifact === artifact)?.running ?? [];
  return [
    ...(['api', 'worker', 'web'] as const)
      .filter((name) => ctx.probed!.probed.includes(name))
      .map((artifact) => ({
        artifact,
        repository: ctx.options.images[artifact],
        tag,
        running: running(artifact),
      })),
    ...Object.entries(ctx.extraImages ?? {}).map(([artifact, repository]) => ({
      artifact,
      repository,
      tag,
      running: running(artifact),
    })),
  ];
}
