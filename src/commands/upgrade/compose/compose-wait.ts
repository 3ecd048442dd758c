import { versionReadOrder } from '../../../config/version-variables.ts';
import { readComposeContainers } from '../../../deployment-engines/compose/compose-containers.ts';
import {
  type ComposeExpectation,
  judgeComposeConvergence,
} from '../../../upgrade/compose/compose-convergence.ts';
import type { ComposeContainer } from '../../../upgrade/compose/compose-types.ts';
import { POLL_MS, type ServiceRole, UpgradeStop } from '../../../upgrade/deployment-types.ts';
import { reportedApiVersion, waitReportedVersion } from '../wait-reported-version.ts';
import type { ComposeUpgradeContext } from './compose-context.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** The project's containers now (web's version read from `SERVICE_CLIENT_VERSION`). */
export function readContainers(ctx: ComposeUpgradeContext): Promise<ComposeContainer[]> {
  return readComposeContainers(
    ctx.docker,
    ctx.project.name,
    new Set(ctx.plan?.services.filter((s) => s.role === 'web').map((s) => s.service) ?? []),
    versionReadOrder(ctx.config),
  );
}

/**
 * Poll the engine until the pure judge says every expected service has converged (resolves) or
 * one failed (throws UpgradeStop), or the deadline passes (UpgradeStop of kind deadline, saying
 * what it still waited for). "Running since" is this machine's clock at the first poll that saw
 * the container running, so the engine's clock does not matter.
 */
export async function waitComposeConverged(
  ctx: ComposeUpgradeContext,
  expected: ComposeExpectation[],
  deadline: number,
  options: { tolerate?: boolean; progress: (text: string) => void },
): Promise<void> {
  const runningSince = new Map<string, number>();
  let last = 'no answer from the engine yet';
  for (;;) {
    const containers = await readContainers(ctx);
    const now = Date.now();
    for (const c of containers)
      if (c.state === 'running' && !runningSince.has(c.id)) runningSince.set(c.id, now);
    const verdict = judgeComposeConvergence({
      expected,
      containers,
      runningSince,
      stableMs: ctx.monitorMs,
      now,
      ...(options.tolerate ? { tolerate: true } : {}),
    });
    if (verdict.status === 'converged') return;
    if (verdict.status === 'failed') {
      throw new UpgradeStop({ service: verdict.service, kind: 'task', reason: verdict.reason });
    }
    if (verdict.reason !== last) options.progress(verdict.reason);
    last = verdict.reason;
    if (now >= deadline) {
      throw new UpgradeStop({ kind: 'deadline', reason: `not converged before the deadline: ${last}` });
    }
    await pause(Math.min(POLL_MS, deadline - now));
  }
}

/**
 * Each service reports its version: the API over `/api/version` (its service), the others from
 * their running containers' `SERVICE_VERSION` (as verify reads them). A wrong version that lasts
 * is final at once (`judgeVersions`): an image that reports another tag will not change its mind.
 */
export async function waitComposeVersions(
  ctx: ComposeUpgradeContext,
  wanted: { service: string; role: ServiceRole; version: string }[],
  deadline: number,
  progress: (text: string) => void,
): Promise<void> {
  for (const want of wanted) {
    await waitReportedVersion(
      want,
      async () => {
        if (want.role === 'api' && want.service === ctx.serviceNames.api)
          return reportedApiVersion(ctx, deadline);
        const containers = (await readContainers(ctx)).filter(
          (c) => c.service === want.service && c.state === 'running' && !c.oneOff,
        );
        const seen = containers.map((c) => c.version ?? 'unknown');
        return { seen, last: seen.join(', ') || 'no running container' };
      },
      deadline,
      progress,
    );
  }
}

/** One line per service: its containers, their state and digest (what a failed rollback reports). */
export function describeServices(containers: ComposeContainer[], services: string[]): string {
  return services
    .map((service) => {
      const mine = containers.filter((c) => c.service === service && !c.oneOff);
      if (mine.length === 0) return `${service}: no container`;
      return `${service}: ${mine
        .map(
          (c) =>
            `${c.name} ${c.state}${c.state === 'exited' ? `(${c.exitCode})` : ''}${c.health ? ` ${c.health}` : ''} on ${c.digest?.slice(0, 19) ?? '?'} (${c.version ?? '?'})`,
        )
        .join(', ')}`;
    })
    .join('; ');
}
