import { imageArtifact, imagesWithRoles } from '../../config/artifacts.ts';
import type { Step } from '../../pipeline/step.ts';
import { exitCodeOf } from '../../verify/report.ts';
import { deployedVersion, storeTagOf } from './deployed-images.ts';
import { signSummaries } from './sign-summaries.ts';
import type { VerifyContext } from './verify-context.ts';

/**
 * `--attest`: once the deployment was checked, sign what was found as SLSA verification summaries
 * (one per image, one for the release set) with the verifier's key. Every image of the release is
 * vouched for (those the deployment did not show were checked in the registry, deployed-images.ts);
 * `in-step` only for those it showed running. In step: PASSED, attached to every digest as
 * referrers and written to `--out`. Drift: FAILED, written to `--out` only (a gate must never find
 * a failure stored as if it vouched for the image). Unreachable: nothing was proved, so nothing is
 * signed.
 */
export const verifyAttestStep: Step<VerifyContext> = {
  title: 'Sign the verification summaries',
  writes: true,
  skip: (ctx) =>
    !ctx.attest
      ? 'pass --attest to sign a verification summary'
      : ctx.report?.exitCode === 3
        ? 'part of the deployment could not be read: nothing to vouch for'
        : false,
  async run(ctx, io) {
    const version = deployedVersion(ctx);
    if (!version) {
      io.progress('no readable tag: nothing to vouch for');
      return;
    }
    const tag = await storeTagOf(ctx, version);
    // Only what this run read and checked is vouched for (by repository: roles of one image are one).
    const checked = new Set((ctx.evidence ?? []).filter((e) => e.digest).map((e) => e.repository));
    const artifacts = imagesWithRoles(ctx.config).map((i) => ({
      name: i.artifact,
      repository: i.repository,
      roles: i.roles,
    }));
    const leftOut = artifacts.filter((a) => !checked.has(a.repository)).map((a) => a.name);
    if (leftOut.length > 0)
      ctx.warnings.push(
        `no verification summary for ${leftOut.join(', ')} (not read by this verify), nor for the release set`,
      );
    const passed = exitCodeOf(ctx.report!.findings, ctx.attest!.failOn) === 0;
    ctx.summaries = await signSummaries({
      formats: ctx.config.signing?.formats,
      store: ctx.store!,
      releaseKey: ctx.trustedKey!,
      attest: ctx.attest!,
      artifacts: artifacts.filter((a) => checked.has(a.repository)),
      tag,
      // What --attest made this verify require: what the summary may say was checked.
      checks: [
        'signature',
        'sbom',
        'provenance',
        'release-set',
        ...(ctx.provenance?.length ? (['rc-restamp'] as const) : []),
      ],
      inStep: liveRepositories(ctx),
      wholeRelease: leftOut.length === 0,
      passed,
      provenance: ctx.provenance ?? [],
    });
    const attached = ctx.summaries.reduce((n, s) => n + s.attached.length, 0);
    io.progress(
      `${ctx.summaries.length} ${passed ? 'PASSED' : 'FAILED'} summaries${passed ? `, ${attached} referrer(s) attached` : ''}`,
    );
  },
};

/**
 * The images the deployment showed, by repository: one a probe read a version from (by URL or on
 * its engine), or whose containers the engine runs. An image read only at its tag (no --web-url)
 * is the release's, but no deployment was seen running it.
 */
function liveRepositories(ctx: VerifyContext): string[] {
  const read = (ctx.probed?.results ?? [])
    .filter((r) => r.version !== undefined && r.running !== false && r.name !== 'cli')
    .map(
      (r) =>
        (r.role ? imageArtifact(ctx.config, r.role)?.image : undefined) ??
        ctx.options.images[r.name as 'api'],
    );
  const running = (ctx.registry ?? []).filter((r) => r.running.length > 0).map((r) => r.repository);
  return [...new Set([...read, ...running])];
}
