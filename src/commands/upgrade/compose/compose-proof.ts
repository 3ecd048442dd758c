import { imageOfRole } from '../../../config/artifacts.ts';
import type { Proof } from '../../../upgrade/upgrade-outcome.ts';
import { verifyDeployment } from '../../../verify/verify-deployment.ts';
import type { ComposeUpgradeContext } from './compose-context.ts';

/**
 * The verify checks of the deployment (`release verify --compose`, without the operator's svc):
 * the API over HTTP, the worker from the project's containers, web when its URL is known; with
 * `expect`, that tag of every one.
 */
export async function proveComposeInStep(
  ctx: ComposeUpgradeContext,
  expect: string | undefined,
): Promise<Proof> {
  const report = await verifyDeployment(
    {
      url: ctx.apiUrl,
      docker: { host: ctx.dockerHost, composeProject: ctx.project.name },
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
