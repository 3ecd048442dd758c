import type { Step } from '../../pipeline/step.ts';
import { exitCodeOf } from '../../verify/report.ts';
import type { ReleaseVerifyContext } from './release-verify-context.ts';
import { signSummaries } from './sign-summaries.ts';

/**
 * `--attest` without a deployment: a summary for every image of the release and one for the
 * release set, saying what was checked in the store (signatures, SBOM, provenance, release set,
 * the rc re-stamp of a release) and never `in-step`: no deployment was seen.
 */
export const releaseAttestStep: Step<ReleaseVerifyContext> = {
  title: 'Sign the verification summaries',
  writes: true,
  skip: (ctx) =>
    !ctx.attest
      ? 'pass --attest to sign a verification summary'
      : ctx.report?.exitCode === 3
        ? 'part of the release could not be read: nothing to vouch for'
        : false,
  async run(ctx, io) {
    const passed = exitCodeOf(ctx.report!.findings, ctx.attest!.failOn) === 0;
    ctx.summaries = await signSummaries({
      formats: ctx.config.signing?.formats,
      store: ctx.store,
      releaseKey: ctx.trustedKey!,
      attest: ctx.attest!,
      artifacts: ctx.subjects.map((s) => ({ name: s.artifact, repository: s.repository, roles: s.roles })),
      tag: ctx.tag,
      checks: [
        'signature',
        'sbom',
        'provenance',
        'release-set',
        ...(ctx.provenance?.length ? (['rc-restamp'] as const) : []),
      ],
      inStep: [],
      wholeRelease: true,
      passed,
      provenance: ctx.provenance ?? [],
    });
    const attached = ctx.summaries.reduce((n, s) => n + s.attached.length, 0);
    io.progress(
      `${ctx.summaries.length} ${passed ? 'PASSED' : 'FAILED'} summaries${passed ? `, ${attached} referrer(s) attached` : ''}`,
    );
  },
};
