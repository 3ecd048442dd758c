import type { BaseContext } from '../pipeline/context.ts';
import type { CheckOutcome } from '../verify/checks.ts';
import type { ProbedDeployment, VerifyTarget } from '../verify/probe-deployment.ts';
import type { DeploymentReport } from '../verify/types.ts';
import type { VerifyOptions } from '../verify/verify-deployment.ts';

export interface VerifyContext extends BaseContext {
  target: VerifyTarget;
  options: VerifyOptions;
  startedAt: number;
  probed?: ProbedDeployment;
  outcome?: CheckOutcome;
  report?: DeploymentReport;
}
