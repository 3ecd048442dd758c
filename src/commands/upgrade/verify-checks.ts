import { imageOfRole } from '../../config/artifacts.ts';
import type { Proof } from '../../upgrade/upgrade-outcome.ts';
import type { VerifyTarget } from '../../verify/probe-deployment.ts';
import { verifyDeployment } from '../../verify/verify-deployment.ts';
import type { UpgradeRunContext } from './upgrade-context.ts';

/** How verify reads the worker on the engine: what each engine says of itself (its proof step). */
export type WorkerSource = Omit<VerifyTarget, 'url' | 'webUrl' | 'name'>;

/**
 * The verify checks of the deployment, as `release verify` runs them without the operator's svc:
 * the API over HTTP, the worker read from the engine as `worker` says (a Docker engine, a Compose
 * project's containers only), web when its URL is known; with `expect`, that tag of every one.
 * Notices are not findings: they never stop an upgrade.
 */
export async function verifyChecks(
  ctx: UpgradeRunContext,
  worker: WorkerSource,
  expect: string | undefined,
): Promise<Proof> {
  const report = await verifyDeployment(
    {
      url: ctx.apiUrl,
      ...worker,
      ...(ctx.webUrl ? { webUrl: ctx.webUrl } : {}),
    },
    {
      env: ctx.env,
      cwd: ctx.cwd,
      timeoutMs: ctx.probeTimeoutMs,
      cli: false,
      images: {
        api: imageOfRole(ctx.config, 'api'),
        worker: imageOfRole(ctx.config, 'worker'),
        web: imageOfRole(ctx.config, 'web'),
      },
      ...(expect !== undefined ? { expect } : {}),
    },
  );
  return {
    inStep: report.inStep,
    tag: expect ?? report.reference?.tag,
    findings: report.findings.filter((f) => f.severity !== 'notice').map((f) => `${f.code}: ${f.message}`),
  };
}
