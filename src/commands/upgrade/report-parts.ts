import type { UpgradeOutcome } from '../../upgrade/upgrade-outcome.ts';
import type { UpgradeRunContext } from './upgrade-context.ts';

/** A digest as the tables show it: `sha256:` and 12 hex digits. */
export const shortDigest = (digest: string | undefined) => (digest ? digest.slice(0, 19) : '-');

/**
 * What happened after the plan, for a person, whatever the engine: the timeline, the
 * failure, each service put back, and what verify still found.
 */
export function outcomeLines(ctx: UpgradeRunContext): string[] {
  const lines: string[] = [];
  if (ctx.events.length > 0) {
    lines.push('', 'what happened:');
    for (const e of ctx.events) lines.push(`  ${(e.ms / 1000).toFixed(1).padStart(6)} s  ${e.text}`);
  }
  if (ctx.failure) lines.push('', `failed: ${ctx.failure.reason}`);
  for (const r of ctx.restores) lines.push(`  rolled back ${r.name} (${r.role}): ${r.status}, ${r.detail}`);
  if (ctx.proof && !ctx.proof.inStep) for (const f of ctx.proof.findings) lines.push(`  verify: ${f}`);
  return lines;
}

/** The `--json` document's opening: which tag, and how it ended. */
export function outcomeHead(ctx: UpgradeRunContext, tag: string, outcome: UpgradeOutcome) {
  return {
    tag,
    dryRun: ctx.dryRun,
    status: outcome.status,
    exitCode: outcome.exitCode,
    verdict: outcome.verdict,
  };
}

/** The `--json` document's findings: the CLI minimum, the failure, the rollback and the proof. */
export function outcomeResult(ctx: UpgradeRunContext) {
  return {
    cliMinimum: ctx.cliChange ?? null,
    targetMinCliVersion: ctx.targetMinCli ?? null,
    failure: ctx.failure ?? null,
    rolledBack: ctx.restores,
    proof: ctx.proof ?? null,
  };
}

/** The `--json` document's close: the timeline, the time it took, the warnings. */
export function outcomeTail(ctx: UpgradeRunContext) {
  return {
    events: ctx.events,
    elapsedMs: Math.round(performance.now() - ctx.startedAt),
    warnings: ctx.warnings,
  };
}
