import type { SkewPolicy } from '../version/skew.ts';
import { checkDeployment } from './checks.ts';
import type { FixContext, Naming } from './fixes.ts';
import { type ProbeOptions, probeDeployment, type VerifyTarget } from './probe-deployment.ts';
import { buildReport } from './report.ts';
import type { DeploymentReport } from './types.ts';

export interface VerifyOptions extends Omit<ProbeOptions, 'workerImage'> {
  images: FixContext['images'];
  expect?: string;
  /** Config `skew:`; default: every artifact equal to the API. */
  skew?: SkewPolicy;
  /** The service's own version variables and CLI, named in the fixes. */
  naming?: Naming;
}

/** Probe one deployment, check what was read, and return the verdict. Never throws for a probe. */
export async function verifyDeployment(
  target: VerifyTarget,
  options: VerifyOptions,
): Promise<DeploymentReport> {
  const started = performance.now();
  const probed = await probeDeployment(target, { ...options, workerImage: options.images.worker });
  const outcome = checkDeployment({
    apiUrl: target.url,
    results: probed.results,
    probed: probed.probed,
    images: options.images,
    ...(options.expect !== undefined ? { expect: options.expect } : {}),
    ...(options.skew ? { skew: options.skew } : {}),
    ...(options.naming ? { naming: options.naming } : {}),
  });
  return buildReport(target, probed, outcome, Math.round(performance.now() - started));
}
