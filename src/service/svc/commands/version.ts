import { selectTimeout } from '../config/select-api.ts';
import type { GatedRun, SvcContext } from '../context.ts';
import type { GateDecision, GateOutcome } from '../gate/decide.ts';
import { probeVersion } from '../gate/probe.ts';
import type { VersionProbe } from '../gate/version-document.ts';
import { out, outJson } from '../output.ts';

const VERDICTS: Record<GateOutcome, string> = {
  pass: 'compatible',
  'newer-server': 'compatible (the server is newer than this CLI)',
  blocked: 'blocked: below the minimum',
  'below-minimum-warned': 'below the minimum (legacy warn-only gate)',
  'not-checked': 'not established',
  'dev-build': 'not checked (development build)',
};

/** `svc version [--json]`: what the gate saw, shown rather than acted on. */
export async function runVersion(ctx: SvcContext, gated: GatedRun | undefined): Promise<number> {
  const { baseUrl, gate } = gated!;
  const server = await serverOf(ctx, baseUrl, gate);
  if (ctx.json) {
    outJson({
      cli: ctx.cliVersion,
      api: { url: baseUrl, ...server },
      verdict: gate.outcome,
      reason: gate.reason,
    });
    return 0;
  }
  out(`client:  svc ${ctx.cliVersion}`);
  out(
    server.error === undefined
      ? `server:  ${server.version ?? '(no valid version field)'} at ${baseUrl}, minimum CLI version ${server.min_cli_version}`
      : `server:  ${baseUrl} could not be read: ${server.error}`,
  );
  out(`verdict: ${VERDICTS[gate.outcome]}: ${gate.reason}`);
  return 0;
}

interface ServerView {
  version?: string | null;
  min_cli_version?: string;
  error?: string;
}

async function serverOf(ctx: SvcContext, baseUrl: string, gate: GateDecision): Promise<ServerView> {
  if (gate.server)
    return { version: gate.server.version ?? null, min_cli_version: gate.server.minCliVersion };
  // A development build skips the gate's request; the server's side is still worth showing here.
  const probe: VersionProbe | undefined =
    gate.outcome === 'dev-build'
      ? await probeVersion(baseUrl, { timeoutMs: selectTimeout(ctx.env), cliVersion: ctx.cliVersion })
      : undefined;
  if (probe?.kind === 'document')
    return { version: probe.version ?? null, min_cli_version: probe.minCliVersion };
  return { error: probe?.reason ?? gate.reason };
}
