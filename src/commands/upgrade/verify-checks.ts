import { imageOfRole } from '../../config/artifacts.ts';
import type { Proof } from '../../upgrade/upgrade-outcome.ts';
import type { WorkerSource } from './prove-deployment.ts';
import type { UpgradeRunContext } from './upgrade-context.ts';

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
  return ctx.proveDeployment({
    target: {
      url: ctx.apiUrl,
      ...worker,
      ...(ctx.webUrl ? { webUrl: ctx.webUrl } : {}),
      ...(ctx.webUrls ? { webUrls: ctx.webUrls } : {}),
    },
    env: ctx.env,
    cwd: ctx.cwd,
    timeoutMs: ctx.probeTimeoutMs,
    images: {
      api: imageOfRole(ctx.config, 'api'),
      worker: imageOfRole(ctx.config, 'worker'),
      web: imageOfRole(ctx.config, 'web'),
    },
    ...(expect !== undefined ? { expect } : {}),
  });
}
