import { imagesWithRoles } from '../../config/artifacts.ts';
import { currentIo } from '../../console/cli-io.ts';
import { UsageError } from '../../errors.ts';
import { runPipeline } from '../../pipeline/runner.ts';
import { spelledTagIn } from '../../registry/spelled-tag.ts';
import { renderReport, reportJson } from '../../verify/report.ts';
import { parseVersion } from '../../version/parse.ts';
import { printJson, printLine, warn } from '../output.ts';
import type { ReleaseVerifyContext } from './release-verify-context.ts';
import { releaseVerifyPipeline } from './release-verify-pipeline.ts';
import { summaryLine } from './sign-summaries.ts';
import { finish } from './verify-report.ts';
import { openRegistry, type VerifyRun } from './verify-setup.ts';

/**
 * `release verify --registry --expect <tag>` and no deployment: the release as the store holds it,
 * before anything runs it (a CI gate, an admission step, the far side of a mirror). Every image of
 * the config once (the roles of one image are one image): there at the tag and stating it, signed
 * with every platform image, its SBOM, provenance and release set, a release its rc re-stamped.
 * Exit 0 when whole, 1 on drift, 3 when the store could not be read. `--attest` signs a summary for
 * every image and the release set, without `in-step`: no deployment was seen.
 */
export async function verifyRelease(run: VerifyRun): Promise<void> {
  const { flags, base, expect } = run;
  if (expect === undefined)
    throw new UsageError(
      'VERIFY_RELEASE_NO_EXPECT',
      'which release? --registry without a deployment needs --expect <tag>',
      {
        hint: 'release verify --registry --expect v1.4.0 (add --require-signature --require-attestations to require the evidence)',
      },
    );
  if (flags.attest) {
    flags.requireSignature = true;
    flags.requireAttestations = true;
  } else if (flags.out || flags.verifierKey)
    throw new UsageError('VERIFY_OUT_WITHOUT_ATTEST', '--out and --verifier-key go with --attest', {
      hint: 'release verify --registry --expect <tag> --attest --out vsa.jsonl',
    });
  const subjects = imagesWithRoles(base.config);
  if (subjects.length === 0)
    throw new UsageError(
      'VERIFY_RELEASE_NO_IMAGES',
      'the config declares no image to look up in the registry',
      {
        hint: 'declare the images under artifacts: in release.config',
      },
    );
  const store = await openRegistry(flags.registry ?? true, base, flags.timeout);
  const trustedKey = await (await import('../../signing/key-files.ts')).readPublicKey(base);
  if ((flags.requireSignature || flags.requireAttestations) && !trustedKey)
    throw new UsageError(
      'VERIFY_NO_PUBLIC_KEY',
      `${flags.requireSignature ? '--require-signature' : '--require-attestations'} needs signing.publicKey in the config`,
      { hint: 'set signing.publicKey to the .pub file of the key that signs release candidates' },
    );
  const attest = flags.attest
    ? await (await import('./attest-setup.ts')).attestSetup(flags, base, trustedKey!.keyId)
    : undefined;
  const version = parseVersion(expect);
  const ctx: ReleaseVerifyContext = {
    ...base,
    store,
    version,
    // Either spelling of the tag finds the one the store holds (DESIGN.md "Channels and tags").
    tag: await spelledTagIn(store, subjects[0]!.repository, expect),
    subjects,
    ...(trustedKey ? { trustedKey } : {}),
    requireSignature: Boolean(flags.requireSignature),
    requireAttestations: Boolean(flags.requireAttestations),
    ...(attest ? { attest } : {}),
    timeoutMs: flags.timeout,
    startedAt: performance.now(),
  };
  await runPipeline(releaseVerifyPipeline, ctx, {
    json: ctx.json || !currentIo().stderr.isTTY,
    env: ctx.env,
    dryRun: ctx.dryRun,
  });
  const report = ctx.report!;
  if (ctx.json)
    printJson({
      mode: 'registry',
      store: store.name,
      ...reportJson(report),
      ...(ctx.summaries ? { summaries: ctx.summaries } : {}),
      ...(ctx.warnings.length ? { warnings: ctx.warnings } : {}),
    });
  else {
    printLine(`release ${ctx.tag} in ${store.name}, no deployment read:`);
    for (const line of renderReport(report)) printLine(line);
    for (const s of ctx.summaries ?? []) printLine(summaryLine(s, attest?.out));
  }
  for (const text of ctx.warnings) warn(text);
  finish(
    report.exitCode === 0 && flags.failOn === 'warn' && report.findings.some((f) => f.severity === 'warn')
      ? 1
      : report.exitCode,
    report.exitCode === 3 ? 'could not read everything asked for' : 'the release is not whole',
  );
}
