import { deploymentTargets, targetReaders } from '../../deployment-targets/deployment-targets.ts';
import { UsageError } from '../../errors.ts';
import { verifyFleet } from '../../verify/fleet.ts';
import { exitCodeOf } from '../../verify/report.ts';
import { VERIFY_TARGETS } from './verify-flags.ts';
import { finish, printFleetReport, worstCode } from './verify-report.ts';
import { liveRequirements, type VerifyRun, verifyOptions } from './verify-setup.ts';

/** `--all`: every deployment of the config, side by side, one table. */
export async function verifyAll(run: VerifyRun): Promise<void> {
  const { flags, base } = run;
  liveRequirements(flags);
  const { options } = await verifyOptions(run);
  if (flags.requireAttestations) {
    throw new UsageError(
      flags.attest ? 'VERIFY_ALL_ATTEST' : 'VERIFY_ALL_ATTESTATIONS',
      `${flags.attest ? '--attest' : '--require-attestations'} checks one deployment at a time`,
      {
        hint: 'check the evidence with --url <api> --require-attestations, deployment by deployment',
      },
    );
  }
  if (flags.requireSignature) {
    throw new UsageError('VERIFY_ALL_SIGNATURES', '--require-signature checks one deployment at a time', {
      hint: 'check signatures with --url <api> --require-signature, deployment by deployment',
    });
  }
  const fleetTargets = await deploymentTargets(flags, base, VERIFY_TARGETS);
  const fleet = await verifyFleet(fleetTargets, {
    ...options,
    ...(await targetReaders(fleetTargets)),
    concurrency: flags.concurrency,
    targetTimeoutMs: flags.targetTimeout,
  });
  printFleetReport(fleet, base.json);
  finish(
    worstCode(fleet.deployments.map((d) => exitCodeOf(d.findings, flags.failOn))),
    `${fleet.summary.total - fleet.summary.inStep} of ${fleet.summary.total} not in step`,
  );
}
