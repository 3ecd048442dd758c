import { table } from '../../../console/table.ts';
import { outcomeHead, outcomeLines, outcomeResult, outcomeTail, shortDigest } from '../report-parts.ts';
import type { ComposeUpgradeContext } from './compose-context.ts';

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
        m.from.digests.map(shortDigest).join(', ') || '-',
        m.from.versions.join(', ') || '-',
        m.to
          ? m.changes
            ? `${plan.tag} ${shortDigest(m.to.digest)}`
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
  lines.push(...outcomeLines(ctx));
  lines.push('', ctx.outcome!.verdict);
  return lines;
}

/** One JSON document: the plan, the timeline, the failure, each rollback and the verdict. */
export function composeUpgradeJson(ctx: ComposeUpgradeContext) {
  const plan = ctx.plan!;
  return {
    ...outcomeHead(ctx, plan.tag, ctx.outcome!),
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
    ...outcomeResult(ctx),
    containers: (ctx.containersAfter ?? []).map((c) => ({
      service: c.service,
      name: c.name,
      state: c.state,
      health: c.health ?? null,
      digest: c.digest ?? null,
      version: c.version ?? null,
    })),
    ...outcomeTail(ctx),
  };
}
