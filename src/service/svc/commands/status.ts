import { ExternalError } from '../../../errors.ts';
import type { GatedRun, SvcContext } from '../context.ts';
import { probeVersion } from '../gate/probe.ts';
import { out, outJson } from '../output.ts';
import { sanitize } from '../sanitize.ts';

/**
 * `svc status`: the stand-in for the service's ordinary commands (the spec does not show them).
 * It really asks the API — its own request, after the gate — and fails with exit 3 when the API
 * does not answer, as any command that needs the API would.
 */
export async function runStatus(ctx: SvcContext, gated: GatedRun | undefined): Promise<number> {
  const { baseUrl, deadline, timeoutMs } = gated!;
  const started = performance.now();
  // What is left of the one deadline the gate started (a stalled server used all of it).
  const left = Math.floor(deadline - started);
  const probe =
    left > 0
      ? await probeVersion(baseUrl, { timeoutMs: left, cliVersion: ctx.cliVersion })
      : ({
          kind: 'failed',
          reason: `no complete answer within ${timeoutMs} ms (SVC_VERSION_CHECK_TIMEOUT_MS), the version check included`,
        } as const);
  const ms = Math.round(performance.now() - started);
  if (probe.kind === 'failed') {
    throw new ExternalError('API_UNAVAILABLE', `${baseUrl} did not answer: ${probe.reason}`, {
      hint: 'check the URL (--url, SERVICE_API_URL or `svc config set-url`) and that the API is running',
    });
  }
  if (ctx.json) {
    outJson({ url: baseUrl, version: probe.version ?? null, min_cli_version: probe.minCliVersion, ms });
    return 0;
  }
  out(
    `${baseUrl}: API ${probe.version ?? '(no valid version field)'}, minimum CLI ${sanitize(probe.minCliVersion, 40)} (${ms} ms)`,
  );
  return 0;
}
