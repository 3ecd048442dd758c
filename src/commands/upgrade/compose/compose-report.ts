import { table } from '../../../verify/report.ts';
import type { ComposeUpgradeContext } from './compose-context.ts';

const short = (digest: string | undefined) => (digest ? digest.slice(0, 19) : '-');

/** The plan, what happened, and the verdict, for a person. */
export function renderComposeUpgrade(ctx: ComposeUpgradeContext): string[] {
  const plan = ctx.plan!;
  const lines = [
    `plan: upgrade Compose project ${ctx.project.name} to ${plan.tag}${ctx.dryRun ? ' (dry run)' : ''} with ${ctx.cli.name} ${ctx.cli.version}`,
  ];
  const rows = [
    ...plan.oneShots.map((m) => ['first', m]),
    ...plan.phases.flatMap((phase, i) => phase.map((m) => [String(i + 1), m])),
  ] as [string, (typeof plan.services)[number]][];
  lines.push(
    ...table(
      ['PHASE', 'SERVICE', 'ROLE', 'WHY', 'RUNNING', 'VERSION', 'TARGET', 'REPLACED'],
      rows.map(([phase, m]) => [
        phase,
        m.service,
        m.role,
        m.why,
        m.from.digests.map(short).join(', ') || '-',
        m.from.versions.join(', ') || '-',
        m.to
          ? m.changes
            ? `${plan.tag} ${short(m.to.digest)}`
            : 'already there'
          : 'its own image, run again',
        m.oneShot ? 'runs to completion (exit 0) first' : m.orderReason,
      ]),
    ).map((line) => `  ${line}`),
  );
  lines.push(`  override: ${ctx.overridePath} (your compose files are not changed)`);
  if (ctx.cliChange) lines.push(`  note: ${ctx.cliChange.message}; pinned install: ${ctx.cliChange.install}`);
  if (ctx.dryRun) {
    lines.push('dry run: nothing was written, no container was changed');
    return lines;
  }
  if (ctx.events.length > 0) {
    lines.push('', 'what happened:');
    for (const e of ctx.events) lines.push(`  ${(e.ms / 1000).toFixed(1).padStart(6)} s  ${e.text}`);
  }
  if (ctx.failure) lines.push('', `failed: ${ctx.failure.reason}`);
  for (const r of ctx.restores) lines.push(`  rolled back ${r.name} (${r.role}): ${r.status}, ${r.detail}`);
  if (ctx.proof && !ctx.proof.inStep) for (const f of ctx.proof.findings) lines.push(`  verify: ${f}`);
  lines.push('', ctx.outcome!.verdict);
  return lines;
}

/** One JSON document: the plan, the timeline, the failure, each rollback and the verdict. */
export function composeUpgradeJson(ctx: ComposeUpgradeContext) {
  const plan = ctx.plan!;
  return {
    tag: plan.tag,
    dryRun: ctx.dryRun,
    status: ctx.outcome!.status,
    exitCode: ctx.outcome!.exitCode,
    verdict: ctx.outcome!.verdict,
    compose: {
      cli: `${ctx.cli.name} ${ctx.cli.version}`,
      project: ctx.project.name,
      files: ctx.project.files,
      override: ctx.overridePath,
    },
    plan: {
      upToDate: plan.upToDate,
      oneShots: plan.oneShots,
      phases: plan.phases,
      pins: plan.pins,
    },
    cliMinimum: ctx.cliChange ?? null,
    targetMinCliVersion: ctx.targetMinCli ?? null,
    failure: ctx.failure ?? null,
    rolledBack: ctx.restores,
    proof: ctx.proof ?? null,
    containers: (ctx.containersAfter ?? []).map((c) => ({
      service: c.service,
      name: c.name,
      state: c.state,
      health: c.health ?? null,
      digest: c.digest ?? null,
      version: c.version ?? null,
    })),
    events: ctx.events,
    elapsedMs: Math.round(performance.now() - ctx.startedAt),
    warnings: ctx.warnings,
  };
}
