import pLimit from 'p-limit';
import { checkDeployment } from '../verify/checks.ts';
import { type ProbeOptions, probeDeployment, type VerifyTarget } from '../verify/probe-deployment.ts';
import { probeCli } from '../verify/probes/cli.ts';
import { buildReport } from '../verify/report.ts';
import type { DeploymentReport } from '../verify/types.ts';
import type { VerifyOptions } from '../verify/verify-deployment.ts';
import { type FailureReason, failureReason } from './failure-reason.ts';
import type { FlapGuard } from './flap-guard.ts';
import { runningDigests } from './running-digests.ts';

/** A deployment as watched: verify's target with the name its metrics and row carry. */
export interface WatchedTarget extends VerifyTarget {
  name: string;
}

export interface RoundOptions extends Omit<VerifyOptions, 'cliResults' | 'signal'> {
  /** Deployments probed at once. */
  concurrency: number;
  /** Deadline of one deployment's probes. */
  targetTimeoutMs: number;
  /** Deadline of the whole round: whatever has not answered by then is a failed probe. */
  roundTimeoutMs: number;
}

export interface ProbeFailure {
  deployment: string;
  /** The artifact, or the role of a shared image (`scheduler`), whose probe failed. */
  artifact: string;
  reason: FailureReason;
}

export interface RoundResult {
  reports: DeploymentReport[];
  /** Every probe that failed this round, held back by the flap guard or not. */
  failures: ProbeFailure[];
  startedAt: Date;
  durationMs: number;
  /** False when the round's deadline cut it short. */
  complete: boolean;
  /** Per deployment name: the image digest each artifact (each role by its role) runs, when an engine said. */
  digests: Map<string, Record<string, string>>;
}

/**
 * One round: verify's probes and checks for every deployment, read-only and bounded (each probe by
 * its deadline and body cap, each deployment by its own deadline, all of them by the round's),
 * with single failures held back by the flap guard before the checks see them.
 */
export async function runRound(
  targets: WatchedTarget[],
  options: RoundOptions,
  guard: FlapGuard,
): Promise<RoundResult> {
  const startedAt = new Date();
  const started = performance.now();
  const roundController = new AbortController();
  const roundTimer = setTimeout(() => roundController.abort(), options.roundTimeoutMs);
  const roundDeadline = roundController.signal;
  const probeOptions: ProbeOptions = { ...options, workerImage: options.images.worker };
  if (options.cli && options.cliProgram) {
    probeOptions.cliResults = await probeCli({
      program: options.cliProgram,
      env: options.env,
      cwd: options.cwd,
      timeoutMs: options.timeoutMs,
    });
  }
  const failures: ProbeFailure[] = [];
  const digests = new Map<string, Record<string, string>>();
  const limit = pLimit(options.concurrency);
  const reports = await Promise.all(
    targets.map((target) =>
      limit(async () => {
        const deploymentStarted = performance.now();
        // A timer of our own, cleared when the deployment answers: AbortSignal.timeout's would
        // live on for the whole deadline, every round, long after the answer came.
        const deadline = new AbortController();
        const timer = setTimeout(() => deadline.abort(), options.targetTimeoutMs);
        const signal = AbortSignal.any([roundDeadline, deadline.signal]);
        const probed = await probeDeployment(target, { ...probeOptions, signal }).finally(() =>
          clearTimeout(timer),
        );
        for (const r of probed.results) {
          // A job with no run is drift (checkJobs), not a probe that failed.
          if (r.error !== undefined && r.name !== 'job') {
            // Counted per role: a scheduler that cannot be read is not the worker's failure.
            failures.push({
              deployment: target.name,
              artifact: r.role ?? r.name,
              reason: failureReason(r.error),
            });
          }
        }
        const results = guard.hold(target.name, probed.results);
        digests.set(target.name, runningDigests([...results, ...probed.digests]));
        const outcome = checkDeployment({
          apiUrl: target.url,
          results,
          probed: probed.probed,
          images: options.images,
          ...(options.expect !== undefined ? { expect: options.expect } : {}),
          ...(options.skew ? { skew: options.skew } : {}),
          ...(options.naming ? { naming: options.naming } : {}),
        });
        const ms = Math.round(performance.now() - deploymentStarted);
        // verify's reason for a CLI left out names its flag; watch leaves it out unless --cli.
        const notChecked = probed.notChecked.map((n) =>
          n.name === 'cli' ? { ...n, reason: "pass --cli to read this host's svc" } : n,
        );
        return buildReport(target, { ...probed, results, notChecked }, outcome, ms);
      }),
    ),
  );
  clearTimeout(roundTimer);
  guard.keepOnly(new Set(targets.map((t) => t.name)));
  return {
    reports,
    failures,
    startedAt,
    durationMs: performance.now() - started,
    complete: !roundDeadline.aborted,
    digests,
  };
}
