import type { VerifyTarget } from './probe-deployment.ts';
import { type VerifyOptions, verifyDeployment } from './verify-deployment.ts';

/** The checks another command asks for: a deployment, its images, the tag expected of it. */
export interface ProofRequest {
  target: VerifyTarget;
  env: VerifyOptions['env'];
  cwd: string;
  timeoutMs: number;
  images: VerifyOptions['images'];
  expect?: string;
}

/**
 * The verify checks of a deployment without the operator's svc (the CLI is left out), reduced to
 * a verdict and one line per finding: the proof `release upgrade` takes after the upgrade and
 * after a rollback. Notices are not findings: they never stop an upgrade.
 */
export async function proveDeployment(
  request: ProofRequest,
): Promise<{ inStep: boolean; tag: string | undefined; findings: string[] }> {
  const { target, expect, ...options } = request;
  const report = await verifyDeployment(target, {
    ...options,
    cli: false,
    ...(expect !== undefined ? { expect } : {}),
  });
  return {
    inStep: report.inStep,
    tag: expect ?? report.reference?.tag,
    findings: report.findings.filter((f) => f.severity !== 'notice').map((f) => `${f.code}: ${f.message}`),
  };
}
