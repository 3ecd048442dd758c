import { imageArtifacts } from '../../config/artifacts.ts';
import { writeFilesAtomically } from '../../files/atomic-write.ts';
import { packageVersion } from '../../files/package-root.ts';
import type { Step } from '../../pipeline/step.ts';
import { exitCodeOf } from '../../verify/report.ts';
import { deployedVersion, storeTagOf } from './deployed-images.ts';
import type { VerifyContext } from './verify-context.ts';

/**
 * `--attest`: once the deployment was checked, sign what was found as SLSA verification summaries
 * (one per image, one for the release set) with the verifier's key. In step: PASSED, attached to
 * every digest as referrers and written to `--out`. Drift: FAILED, written to `--out` only (a
 * gate must never find a failure stored as if it vouched for the image). Unreachable: nothing
 * was proved, so nothing is signed.
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
    const [{ attestRelease, releaseImages }] = await Promise.all([
      import('../../evidence/attest-release.ts'),
    ]);
    // Only what this run read and checked is vouched for: an image left out (no --web-url) gets
    // no summary, and then neither does the release set.
    // By image: evidence names a web client `web` or by its own name (`admin`), a role by the
    // first role that runs its image; what was checked is the image either way.
    const checked = new Set((ctx.evidence ?? []).filter((e) => e.digest).map((e) => e.repository));
    const artifacts = imageArtifacts(ctx.config).map((a) => ({ name: a.name, repository: a.image }));
    const leftOut = artifacts.filter((a) => !checked.has(a.repository)).map((a) => a.name);
    const images = await releaseImages(
      ctx.store!,
      artifacts.filter((a) => checked.has(a.repository)),
      tag,
    );
    if (leftOut.length > 0)
      ctx.warnings.push(
        `no verification summary for ${leftOut.join(', ')} (not read by this verify: pass its URL or --docker), nor for the release set`,
      );
    const passed = exitCodeOf(ctx.report!.findings, ctx.attest!.failOn) === 0;
    const summaries = await attestRelease({
      store: ctx.store!,
      releaseKey: ctx.trustedKey!,
      verifierKey: ctx.attest!.key,
      verifier: { id: ctx.attest!.verifierId, version: packageVersion() },
      images,
      policy: {
        // What --attest made this verify require: what the summary may say was checked.
        checks: [
          'in-step',
          'signature',
          'sbom',
          'provenance',
          'release-set',
          ...(ctx.provenance?.length ? (['rc-restamp'] as const) : []),
        ],
        releaseKey: ctx.trustedKey!.keyId,
        version: tag,
      },
      passed,
      wholeRelease: leftOut.length === 0,
      madeFrom: rcDigests(ctx),
      timeVerified: new Date().toISOString(),
    });
    if (ctx.attest!.out) {
      const lines = summaries.map((s) => `${Buffer.from(s.bundle).toString('utf8')}\n`).join('');
      await writeFilesAtomically([{ path: ctx.attest!.out, content: lines }]);
    }
    ctx.summaries = summaries.map((s) => ({
      about: s.about,
      resourceUri: s.resourceUri,
      result: passed ? 'PASSED' : 'FAILED',
      attached: s.attached,
    }));
    io.progress(
      `${summaries.length} ${passed ? 'PASSED' : 'FAILED'} summaries${passed ? `, ${summaries.reduce((n, s) => n + s.attached.length, 0)} referrer(s) attached` : ''}`,
    );
  },
};

/** The rc digests a release's images (and their platform images) name, by repository. */
function rcDigests(ctx: VerifyContext): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const p of ctx.provenance ?? []) {
    const digests = [p.madeFrom, ...(p.platforms ?? []).map((c) => c.madeFrom)];
    found[p.repository] = digests.filter((d): d is string => d !== undefined);
  }
  return found;
}
