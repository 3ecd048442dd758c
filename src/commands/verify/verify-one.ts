import { imageArtifacts } from '../../config/artifacts.ts';
import { currentIo } from '../../console/cli-io.ts';
import { deploymentTargets, targetReaders } from '../../deployment-targets/deployment-targets.ts';
import { UsageError } from '../../errors.ts';
import { runPipeline } from '../../pipeline/runner.ts';
import type { VerifyTarget } from '../../verify/probe-deployment.ts';
import { exitCodeOf } from '../../verify/report.ts';
import type { VerifyContext } from './verify-context.ts';
import { VERIFY_TARGETS } from './verify-flags.ts';
import { verifyPipeline } from './verify-pipeline.ts';
import { finish, printDeploymentReport } from './verify-report.ts';
import { liveRequirements, openRegistry, type VerifyRun, verifyOptions } from './verify-setup.ts';

/** One live deployment, through the verify pipeline (probes, registry, signatures, evidence). */
export async function verifyOne(run: VerifyRun): Promise<void> {
  const { flags, base } = run;
  liveRequirements(flags);
  const {
    options,
    images: { api, worker, web },
  } = await verifyOptions(run);
  const [target] = (await deploymentTargets(flags, base, VERIFY_TARGETS)) as [VerifyTarget];
  Object.assign(options, await targetReaders([target]));
  // Without --docker, --registry still checks each release image against its rc; the
  // running digests are compared only when an engine was read.
  // Signatures live in the store: --require-signature reads the config's registry.
  const registryFlag =
    flags.registry ?? (flags.requireSignature || flags.requireAttestations ? true : undefined);
  const store =
    registryFlag === undefined ? undefined : await openRegistry(registryFlag, base, flags.timeout);
  const trustedKey = store
    ? await (await import('../../signing/key-files.ts')).readPublicKey(base)
    : undefined;
  if (flags.requireSignature && !trustedKey) {
    throw new UsageError(
      'VERIFY_NO_PUBLIC_KEY',
      '--require-signature needs signing.publicKey in the config',
      {
        hint: 'set signing.publicKey to the .pub file of the key that signs release candidates',
      },
    );
  }
  if (flags.requireAttestations && !trustedKey) {
    throw new UsageError(
      'VERIFY_NO_PUBLIC_KEY',
      '--require-attestations needs signing.publicKey in the config',
      { hint: 'set signing.publicKey to the .pub file of the release key' },
    );
  }
  // A role of the worker's image (one image, several roles) is read by the worker's probe, by
  // its command; a second read of the image would name every container of it `api`.
  if (store)
    options.digestImages = {
      ...(api.image !== worker.image ? { api: api.image } : {}),
      ...(web.image !== worker.image ? { web: web.image } : {}),
    };
  const attest = flags.attest
    ? await (await import('./attest-setup.ts')).attestSetup(flags, base, trustedKey!.keyId)
    : undefined;
  const ctx: VerifyContext = {
    ...base,
    target,
    options,
    ...(store ? { store } : {}),
    ...(trustedKey
      ? {
          trustedKey,
          requireSignature: Boolean(flags.requireSignature),
          requireAttestations: Boolean(flags.requireAttestations),
          // --registry or --require-attestations: not the store --require-signature alone opens.
          checkAttestations: flags.registry !== undefined || Boolean(flags.requireAttestations),
        }
      : {}),
    ...(attest ? { attest } : {}),
    // Extra images, and every web client but the one `web.image` names (an admin dashboard):
    // released in step with the rest, each checked in the store under its own name.
    extraImages: Object.fromEntries(
      imageArtifacts(base.config)
        .filter((artifact) => !artifact.role || (artifact.role === 'web' && artifact.image !== web.image))
        .map((artifact) => [artifact.name, artifact.image]),
    ),
    startedAt: performance.now(),
  };
  // Progress only where someone watches it: in CI and pipes the table says everything, and the
  // plain renderer's lines would land on stdout ahead of it.
  await runPipeline(verifyPipeline, ctx, {
    json: ctx.json || !currentIo().stderr.isTTY,
    env: ctx.env,
    dryRun: ctx.dryRun,
  });
  const report = printDeploymentReport(ctx, flags.out);
  finish(
    exitCodeOf(report.findings, flags.failOn),
    report.exitCode === 3 ? 'could not read everything asked for' : 'not in step',
  );
}
