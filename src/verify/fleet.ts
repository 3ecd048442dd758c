import pLimit from 'p-limit';
import type { VerifyTarget } from './probe-deployment.ts';
import { probeCli } from './probes/cli.ts';
import { exitCodeOf } from './report.ts';
import type { DeploymentReport } from './types.ts';
import { type VerifyOptions, verifyDeployment } from './verify-deployment.ts';

export interface FleetOptions extends Omit<VerifyOptions, 'cliResults' | 'signal'> {
  /** Deployments checked at once. */
  concurrency: number;
  /** Deadline of one whole deployment (all its probes). */
  targetTimeoutMs: number;
}

export interface FleetReport {
  inStep: boolean;
  exitCode: 0 | 1 | 3;
  deployments: DeploymentReport[];
  summary: { total: number; inStep: number; drift: number; unreachable: number };
  elapsedMs: number;
}

/**
 * Check many deployments concurrently, at most `concurrency` at a time, each within its own
 * deadline. The operator's `svc` is read once (it is the same binary for every deployment) and
 * judged against each API. The fleet's exit code is the worst of its deployments'.
 */
export async function verifyFleet(targets: VerifyTarget[], options: FleetOptions): Promise<FleetReport> {
  const started = performance.now();
  const cliResults =
    options.cli && options.cliProgram
      ? await probeCli({
          program: options.cliProgram,
          env: options.env,
          cwd: options.cwd,
          timeoutMs: options.timeoutMs,
        })
      : undefined;
  const limit = pLimit(options.concurrency);
  const deployments = await Promise.all(
    targets.map((target) =>
      limit(() =>
        verifyDeployment(target, {
          ...options,
          ...(cliResults ? { cliResults } : {}),
          signal: AbortSignal.timeout(options.targetTimeoutMs),
        }),
      ),
    ),
  );
  const count = (code: number) => deployments.filter((d) => d.exitCode === code).length;
  const exitCode = exitCodeOf(deployments.flatMap((d) => d.findings));
  return {
    inStep: exitCode === 0,
    exitCode,
    deployments,
    summary: { total: deployments.length, inStep: count(0), drift: count(1), unreachable: count(3) },
    elapsedMs: Math.round(performance.now() - started),
  };
}
