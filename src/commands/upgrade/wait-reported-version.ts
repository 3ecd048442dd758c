import { POLL_MS, type ServiceRole, UpgradeStop } from '../../upgrade/deployment-types.ts';
import { judgeVersions } from '../../upgrade/version-gate.ts';
import { readApiVersion } from './read-api-version.ts';
import type { UpgradeRunContext } from './upgrade-context.ts';

/** What a service reports now: every version read (one per replica), and a line for the progress. */
export interface ReportedVersions {
  seen: string[];
  last: string;
}

/**
 * Wait until a service that runs the target digest reports `version` (the API over HTTP, the
 * others from their tasks or containers: `read` knows where), whatever the engine. A
 * wrong version that lasts is final at once (`judgeVersions`): an image that reports another tag
 * will not change its mind. Throws UpgradeStop for that, and at the deadline.
 */
export async function waitReportedVersion(
  want: { service: string; role: ServiceRole; version: string },
  read: () => Promise<ReportedVersions>,
  deadline: number,
  progress: (text: string) => void,
): Promise<void> {
  let wrongSince: number | undefined;
  for (;;) {
    const { seen, last } = await read();
    const now = Date.now();
    const gate = judgeVersions({ seen, tag: want.version, wrongSince, now });
    if (gate.status === 'reached') return;
    wrongSince = gate.status === 'waiting' ? gate.wrongSince : undefined;
    if (gate.status === 'wrong') {
      throw new UpgradeStop({
        role: want.role,
        service: want.service,
        kind: 'version',
        reason: `${want.service} runs the ${want.version} digest but ${gate.reason}`,
      });
    }
    if (now >= deadline) {
      throw new UpgradeStop({
        role: want.role,
        service: want.service,
        kind: 'deadline',
        reason: `${want.service} does not report ${want.version} before the deadline (it reports ${last})`,
      });
    }
    progress(`${want.service}: waiting for ${want.version} (${last})`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(0, deadline - now))));
  }
}

/**
 * What the API reports over `/api/version`, for `waitReportedVersion`; the `min_cli_version` it
 * reports is kept as the upgraded API's (the warning when a target image did not label it).
 */
export async function reportedApiVersion(
  ctx: UpgradeRunContext,
  deadline: number,
): Promise<ReportedVersions> {
  const api = await readApiVersion(
    ctx.apiUrl,
    Math.min(ctx.probeTimeoutMs, Math.max(1, deadline - Date.now())),
  );
  if (api.minCliVersion) ctx.upgradedMinCli = api.minCliVersion;
  return {
    seen: api.version === undefined ? [] : [api.version],
    last: api.version ?? api.error ?? 'no version',
  };
}
